/**
 * A minimal npm registry on 127.0.0.1 for set-up tests, run as its own process (the code under test calls
 * `npm` through spawnSync, which blocks the test's event loop). Serves one package version: its packument at
 * `/<name>` and its tarball; appends every request path to a log file; prints its port on stdout.
 *
 *   bun test/helpers/local-registry.ts <name> <version> <tarball.tgz> <integrity> <request-log>
 */
import { appendFileSync, readFileSync } from "node:fs";

const [name, version, tarballPath, integrity, logPath] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const tarball = readFileSync(tarballPath);
const server: ReturnType<typeof Bun.serve> = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request): Response {
    const path = new URL(request.url).pathname;
    appendFileSync(logPath, `${path}\n`);
    if (path.endsWith(".tgz")) return new Response(tarball);
    if (decodeURIComponent(path) !== `/${name}`) return Response.json({ error: "not found" }, { status: 404 });
    const tarballUrl: string = `http://127.0.0.1:${server.port}/${name}/-/${name.split("/").pop()}-${version}.tgz`;
    return Response.json({
      name,
      "dist-tags": { latest: version },
      versions: { [version]: { name, version, dist: { tarball: tarballUrl, integrity } } },
    });
  },
});
console.log(server.port);
