/**
 * Which tree records a Claude Code unit owns (docs/formats.md §1.8; issue 26): a main transcript owns its lines
 * without `isSidechain`, a sub-agent file owns all its lines, and an inline sub-agent chain (sidechains.ts) owns the
 * sidechain lines of one tree. Also the links between a main conversation's Task calls and its inline chains, and the
 * sidechain lines of a main file that no unit owns (issue 37).
 */
import { promptKey, type Rec } from "./records.ts";
import { sidechainSessionId } from "./sidechains.ts";
import { treeRootsOf } from "./tree.ts";

/** What a unit owns of a file's records. */
export type Ownership = { kind: "main" } | { kind: "all" } | { kind: "chain"; rootUuid: string };

/** The records `ownership` selects from `recs` (file order kept). */
export function ownedRecords(recs: readonly Rec[], ownership: Ownership): Rec[] {
  if (ownership.kind === "all") return [...recs];
  if (ownership.kind === "main") return recs.filter((rec) => rec.sc !== true);
  const sidechain = recs.filter((rec) => rec.sc === true);
  const roots = treeRootsOf(sidechain);
  return sidechain.filter((rec) => roots.get(rec.u) === ownership.rootUuid);
}

/**
 * The inline sub-agent chains of a file by the key of their first prompt (records.ts `promptKey`): a Task call whose
 * prompt has that key started the chain `agent-<first uuid>`.
 */
export function inlineAgentLinks(recs: readonly Rec[]): Map<string, string> {
  const links = new Map<string, string>();
  for (const rec of recs) {
    if (rec.sc !== true || rec.p !== null || rec.k !== "prompt" || rec.prompt === undefined) continue;
    const key = promptKey(rec.prompt);
    if (!links.has(key)) links.set(key, sidechainSessionId(rec.u));
  }
  return links;
}

/** The compact input (its description) of the Task call whose prompt started the chain `owned`, or null. */
export function taskDescriptionOf(recs: readonly Rec[], owned: readonly Rec[]): string | null {
  const first = owned.find((rec) => rec.p === null && rec.k === "prompt");
  if (first?.prompt === undefined) return null;
  const key = promptKey(first.prompt);
  for (const rec of recs) {
    if (rec.sc === true || rec.k !== "assistant") continue;
    for (const block of rec.blocks ?? []) {
      if (block.tool?.taskPrompt === key && block.tool.call.input) return block.tool.call.input;
    }
  }
  return null;
}

/**
 * The sub-agent records of a main file that no unit owns (issue 37): sidechain prompts, answers with text or calls,
 * and tool results whose tree does not start at one of `chainRoots` (the inline chains listUnits made units of,
 * sidechains.ts `inlineSidechainRoots`). Claude Code 2.x main files get no chain units (their sub-agents have agent
 * files), so every sidechain line of theirs is here; so is a 1.x sidechain line hanging off a main line.
 */
export function unownedSidechainRecords(recs: readonly Rec[], chainRoots: ReadonlySet<string>): Rec[] {
  const sidechain = recs.filter((rec) => rec.sc === true);
  if (sidechain.length === 0) return [];
  const roots = treeRootsOf(sidechain);
  return sidechain.filter(
    (rec) =>
      !chainRoots.has(roots.get(rec.u) ?? rec.u) &&
      (rec.k === "prompt" || rec.k === "result" || (rec.k === "assistant" && (rec.blocks?.length ?? 0) > 0)),
  );
}
