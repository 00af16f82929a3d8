/**
 * Built-in vocabulary for synthetic sessions: programming terms, identifiers and file paths. No
 * text from the real corpus is used (docs/style.md §4). Long texts are slices of one seeded pool
 * so that generating gigabytes stays cheap (one `slice` per text instead of one word at a time).
 */
import type { Random } from "./random.ts";

/** Common words of coding-session prose. */
export const words = (
  "the a to of and in is for that it with on this we be as can not by are from or at should if " +
  "function class method module package import export build test tests failing error errors fix bug " +
  "config configuration file files directory path schema migration database query index table column " +
  "server client request response header cookie token session cache memory leak thread async await " +
  "promise callback handler route endpoint api service container docker kubernetes pod deployment " +
  "helm chart pipeline workflow branch commit merge rebase diff patch review lint format type types " +
  "interface struct enum trait generic parser lexer tokenizer compiler runtime bundle webpack vite " +
  "react component state props hook render layout grid flex style css html dom event listener socket " +
  "websocket stream buffer encoding utf8 json yaml toml csv log logs logging metric metrics trace " +
  "timeout retry backoff queue worker job cron scheduler lock mutex transaction rollback commit " +
  "postgres sqlite redis mongo kafka nginx proxy load balancer dns tls certificate ssh key secret env " +
  "variable flag option argument cli command shell bash script terminal process signal exit code " +
  "python rust go typescript javascript node bun deno java kotlin swift ruby elixir zig " +
  "refactor rename extract inline split merge cleanup optimize profile benchmark latency throughput " +
  "allocate pointer reference borrow lifetime ownership closure iterator vector map set hash tree " +
  "graph node edge search sort filter reduce batch chunk embed vector similarity rank score " +
  "update upgrade install dependency version release tag publish deploy rollout revert snapshot"
).split(" ");

const nameParts = (
  "user order invoice payment cart product account auth login signup profile report " +
  "export import sync backup notify email upload image video audio search feed comment post tag " +
  "billing pricing shipping inventory catalog admin dashboard settings metrics health config"
).split(" ");

const extensions = ["ts", "tsx", "js", "py", "rs", "go", "md", "json", "yaml", "sql", "css", "sh", "toml"];
const folders = ["src", "lib", "app", "pkg", "internal", "test", "tests", "scripts", "docs", "cmd", "api", "web"];

/** A snake_case identifier, e.g. `order_sync_handler`. */
export function snakeName(rng: Random): string {
  return `${rng.pick(nameParts)}_${rng.pick(nameParts)}${rng.chance(0.5) ? `_${rng.pick(words.slice(30))}` : ""}`;
}

/** A camelCase identifier, e.g. `fetchOrderReport`. */
export function camelName(rng: Random): string {
  const verb = rng.pick(["get", "set", "load", "parse", "build", "fetch", "handle", "render", "sync", "create"]);
  const noun = rng.pick(nameParts);
  return verb + noun[0]!.toUpperCase() + noun.slice(1) + (rng.chance(0.4) ? "Async" : "");
}

/** A relative file path, e.g. `src/billing/order-sync.ts`. */
export function filePath(rng: Random): string {
  return `${rng.pick(folders)}/${rng.pick(nameParts)}/${rng.pick(nameParts)}-${rng.pick(nameParts)}.${rng.pick(extensions)}`;
}

/** A project folder name, e.g. `billing-dashboard`. */
export function projectName(rng: Random): string {
  return `${rng.pick(nameParts)}-${rng.pick(["api", "web", "service", "cli", "core", "infra", "app", "tools", "worker"])}`;
}

/** A long text of random words (about `chars` characters), built once per generator run. */
export function buildTextPool(rng: Random, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const r = rng.next();
    const word = r < 0.04 ? snakeName(rng) : r < 0.07 ? camelName(rng) : r < 0.09 ? filePath(rng) : rng.pick(words);
    const sep = rng.chance(0.08) ? ". " : rng.chance(0.02) ? "\n" : " ";
    parts.push(word, sep);
    length += word.length + sep.length;
  }
  return parts.join("");
}

/** A text of `chars` characters sliced from `pool` at a random offset (pool must be longer). */
export function sliceText(rng: Random, pool: string, chars: number): string {
  const n = Math.max(0, Math.min(Math.round(chars), pool.length - 1));
  const start = rng.int(0, pool.length - n - 1);
  return pool.slice(start, start + n);
}
