import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  connectEmbedHelper,
  createLocalEmbedder,
  helperSocketPath,
  resolveEmbedConfig,
  serveEmbedHelper,
  type Embedder,
  type HelperExit,
  type LocalEmbedConfig,
} from "../../src/embed/index.ts";
import { decodeVector, encodeVector, lineSplitter } from "../../src/embed/helper/protocol.ts";
import { pathsUnder } from "../../src/index/index.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-helper-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function localConfig(): LocalEmbedConfig {
  const config = resolveEmbedConfig({ env: {}, home: work, modelFlag: getTestModelPath() });
  if (config.kind !== "local") throw new Error("expected a local model");
  return config;
}

/** Send raw lines on a fresh connection and collect `count` answer lines. */
function rawExchange(socketPath: string, lines: string[], count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const answers: string[] = [];
    const socket = connect(socketPath);
    const feed = lineSplitter((line) => {
      answers.push(line);
      if (answers.length === count) {
        socket.destroy();
        resolve(answers);
      }
    });
    socket.on("data", feed);
    socket.on("error", reject);
    socket.on("connect", () => socket.write(lines.map((line) => `${line}\n`).join("")));
  });
}

describe("embedding helper wire format", () => {
  test("a vector survives base64 both ways; a wrong length is refused", () => {
    const vector = new Float32Array([0.25, -1.5, 3e-8, 0]);
    expect(Array.from(decodeVector(encodeVector(vector), 4))).toEqual(Array.from(vector));
    expect(() => decodeVector(encodeVector(vector), 5)).toThrow(/expected 20/);
  });

  test("lines split across chunks are joined; an endless line is refused", () => {
    const lines: string[] = [];
    const feed = lineSplitter((line) => lines.push(line), 16);
    feed('{"a":');
    feed('1}\n{"b":2}\n{"c"');
    feed(":3}\n");
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(() => feed("x".repeat(17))).toThrow(/longer than 16 bytes/);
  });

  test("the socket path depends on the index folder and the model file, and stays short", () => {
    const config = localConfig();
    const paths = pathsUnder(join(work, "home"));
    const a = helperSocketPath(paths, join(work, "home"), config, "1.0.0")!;
    expect(a).toMatch(/helpers\/embed-[0-9a-f]{16}\.sock$/);
    expect(helperSocketPath(paths, join(work, "home", "examples"), config, "1.0.0")).not.toBe(a);
    expect(helperSocketPath(paths, join(work, "home"), config, "1.0.1")).not.toBe(a);
    expect(
      helperSocketPath(paths, join(work, "home"), { ...config, modelPath: join(work, "absent.gguf") }, "1.0.0"),
    ).toBeUndefined();
    expect(helperSocketPath(pathsUnder(join(work, "x".repeat(120))), work, config, "1.0.0")).toBeUndefined();
  });
});

describe("embedding helper server and client, with the generated model", () => {
  let direct: Embedder;
  beforeAll(async () => {
    direct = await createLocalEmbedder(localConfig());
  });
  afterAll(() => direct.dispose());

  test("a query through the helper gives the same vector as the model in-process; bad requests get one-line errors; stop ends it and removes the socket", async () => {
    const socketPath = join(work, "a.sock");
    const served = serveEmbedHelper({ socketPath, embedder: await createLocalEmbedder(localConfig()), idleMs: 60_000 });
    let client = await connectEmbedHelper(socketPath, 2000);
    for (let i = 0; !client && i < 100; i++) {
      await Bun.sleep(20);
      client = await connectEmbedHelper(socketPath, 2000);
    }
    expect(client).toBeDefined();
    expect(client!.model.fingerprintKey).toBe(direct.fingerprintKey);
    expect(client!.model.pid).toBe(process.pid);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    const query = "where did we configure the docker bridge network";
    expect(Array.from(await client!.embedQuery(query))).toEqual(Array.from(await direct.embedQuery(query)));

    const answers = (
      await rawExchange(socketPath, ["not json", '{"op":"dance"}', '{"op":"query"}', '{"op":"hello"}'], 4)
    ).map((line) => JSON.parse(line));
    expect(answers[0]).toEqual({ ok: false, error: expect.stringMatching(/JSON|Unexpected|token/i) });
    expect(answers[1]).toEqual({ ok: false, error: 'unknown op "dance"' });
    expect(answers[2]).toEqual({ ok: false, error: "query needs a text" });
    expect(answers[3].ok).toBe(true);

    await client!.stop();
    client!.close();
    expect(await served).toBe("stopped" satisfies HelperExit);
    expect(existsSync(socketPath)).toBe(false);
    expect(await connectEmbedHelper(socketPath, 500)).toBeUndefined();
  });

  test("a helper exits after the idle time without requests and removes its socket", async () => {
    const socketPath = join(work, "idle.sock");
    const started = performance.now();
    const exit = await serveEmbedHelper({
      socketPath,
      embedder: await createLocalEmbedder(localConfig()),
      idleMs: 300,
    });
    expect(exit).toBe("idle");
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(existsSync(socketPath)).toBe(false);
  });

  test("a second helper on a live socket leaves; a socket file nobody answers on is replaced", async () => {
    const socketPath = join(work, "twice.sock");
    const first = serveEmbedHelper({ socketPath, embedder: await createLocalEmbedder(localConfig()), idleMs: 60_000 });
    while (!(await connectEmbedHelper(socketPath, 500))) await Bun.sleep(20);
    expect(
      await serveEmbedHelper({ socketPath, embedder: await createLocalEmbedder(localConfig()), idleMs: 60_000 }),
    ).toBe("already-running");
    const client = (await connectEmbedHelper(socketPath, 2000))!;
    await client.stop();
    client.close();
    expect(await first).toBe("stopped");

    const stalePath = join(work, "stale.sock");
    writeFileSync(stalePath, "left behind by a killed helper");
    const replaced = serveEmbedHelper({
      socketPath: stalePath,
      embedder: await createLocalEmbedder(localConfig()),
      idleMs: 60_000,
    });
    let again = await connectEmbedHelper(stalePath, 500);
    for (let i = 0; !again && i < 100; i++) {
      await Bun.sleep(20);
      again = await connectEmbedHelper(stalePath, 500);
    }
    expect(again?.model.dims).toBe(64);
    await again!.stop();
    again!.close();
    expect(await replaced).toBe("stopped");
  });

  test("the index pass runs after its request is answered, a query during it is still answered, and it ends before the helper exits", async () => {
    const socketPath = join(work, "index.sock");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const passes: string[][] = [];
    const embedded: number[] = [];
    const served = serveEmbedHelper({
      socketPath,
      embedder: await createLocalEmbedder(localConfig()),
      idleMs: 60_000,
      onIndex: async (roots, embedder) => {
        passes.push(roots["claude-code"] ?? []);
        await gate;
        embedded.push((await embedder.embedDocuments(["one document", "another document"])).filter(Boolean).length);
      },
    });
    let client = await connectEmbedHelper(socketPath, 2000);
    for (let i = 0; !client && i < 100; i++) {
      await Bun.sleep(20);
      client = await connectEmbedHelper(socketPath, 2000);
    }
    await client!.requestIndex({ "claude-code": ["/somewhere"] });
    expect((await client!.embedQuery("a query while the index pass waits")).length).toBe(64);
    expect(passes).toEqual([["/somewhere"]]);
    expect(embedded).toEqual([]);
    await client!.stop();
    client!.close();
    release();
    expect(await served).toBe("stopped");
    expect(embedded).toEqual([2]);
  });
});
