/**
 * Ids and digests the parsers derive by hashing must never change between versions: an Aider session's id is the
 * session (a new id would add every Aider session to the archive again), and resume states compare turn digests.
 * The expected values were computed apart, with node:crypto's createHash, so a change of hasher (Bun's own was tried
 * for cold start, issue 42) or of the hashed text fails here.
 */
import { describe, expect, test } from "bun:test";
import { sessionIdOf as aiderSessionIdOf } from "../../src/parsers/aider/sessions.ts";
import { workDirHash } from "../../src/parsers/kimi-cli/work-dirs.ts";
import { hashOf } from "../../src/parsers/shared/sha1.ts";

describe("hashes the parsers store stay what they were", () => {
  test("an Aider session id: SHA-256 of path and header line, 12 hex", () => {
    expect(aiderSessionIdOf("/p/.aider.chat.history.md", "# aider chat started at 2025-12-03 14:43:45", 1)).toBe(
      "aider-d43b2ea75c12",
    );
    expect(aiderSessionIdOf("/p/.aider.chat.history.md", "# aider chat started at 2025-12-03 14:43:45", 2)).toBe(
      "aider-d43b2ea75c12-2",
    );
  });

  test("a turn digest: SHA-1 of UTF-8 text or of bytes", () => {
    expect(hashOf("héllo turn")).toBe("ac3f24895e66cd8d7de8fa72a8e62082c312a07e");
    expect(hashOf(new Uint8Array([1, 2, 3]))).toBe("7037807198c22a7d2b0807371d763779a84fdfcf");
  });

  test("a Kimi CLI work dir's folder: MD5 of its path", () => {
    expect(workDirHash("/home/dev/ledger-api")).toBe("a857d7a3cd83544f43667364c361ccef");
  });
});
