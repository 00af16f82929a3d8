import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, connectStdio, fromSource, isolatedEnv, repo, textOf } from "./helpers.ts";

/**
 * Issue 26 over MCP: a hit on a branch the user rewound past is marked rewound in search, and read_turns reads the
 * rewound turns with rewound=true (the main read says how many there are), as `recall show --rewound` does.
 */
const work = mkdtempSync(join(tmpdir(), "recall-mcp-rewound-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const project = join(work, "claude", "-home-dev-proj");
mkdirSync(project, { recursive: true });
mkdirSync(join(work, "none"));
copyFileSync(join(repo, "test/fixtures/claude-code/rewind-branch.jsonl"), join(project, "rewind-branch.jsonl"));
const flags = ["--claude-dir", join(work, "claude"), "--opencode-dir", join(work, "none")];

describe("rewound turns over MCP (issue 26)", () => {
  test("search marks the rewound hit; read_turns reads it with rewound=true and names it from the main read", async () => {
    const server = await connectStdio([...fromSource, "mcp", ...flags], isolatedEnv(work, join(work, "home")));
    try {
      const found = await call(server.client, "search", { query: "abandoned answer", depth: 2 });
      const hit = (found.structuredContent as { results: Array<Record<string, unknown>> }).results[0];
      expect(hit).toMatchObject({ session_id: "rewind-branch", turn: 1, branch: "rewound" });
      expect(textOf(found)).toContain("rewind-branch:r1");

      const main = await call(server.client, "read_turns", { session: "rewind-branch" });
      expect(textOf(main)).toContain("turns 1-2 of 2 · 1 rewound (rewound=true)");
      expect(textOf(main)).not.toContain("Abandoned answer");
      expect(main.structuredContent).toMatchObject({ branch: "main", rewound_turns: 1, total_turns: 2 });

      const rewound = await call(server.client, "read_turns", { session: "rewind-branch", rewound: true });
      expect(textOf(rewound)).toContain("rewound turn r1 of 1");
      expect(textOf(rewound)).toContain("── turn r1 (rewound)");
      expect(textOf(rewound)).toContain("Abandoned answer");
      const turns = (rewound.structuredContent as { turns: Array<Record<string, unknown>> }).turns;
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({ turn: 1, rewound: true, prompt: "Second question, first try" });
    } finally {
      await server.close();
    }
  }, 60_000);
});
