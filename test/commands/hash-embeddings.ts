/**
 * A stand-in OpenAI-compatible embedding endpoint on 127.0.0.1 for command tests: each text becomes a 16-dim bag of
 * hashed words (deterministic, never zero), so `recall index` writes vectors without loading any model. The CLI must
 * be spawned asynchronously while it runs (a synchronous spawn blocks the event loop that answers it).
 */

/** Start the endpoint; `url` is what EMBEDDINGS_URL takes. */
export function startHashEmbeddings(): { url: string; close(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { input: string | string[] };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const data = inputs.map((text, index) => {
        const vector = new Array<number>(16).fill(0.01);
        for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) vector[Number(Bun.hash(word) % 16n)]! += 1;
        return { object: "embedding", index, embedding: vector };
      });
      return Response.json({ object: "list", data, model: "hash-16" });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, close: () => server.stop(true) };
}
