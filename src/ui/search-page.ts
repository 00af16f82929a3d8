/**
 * The search page of `recall ui` (`/`): one box, the same `searchIndex` as the CLI and MCP, filters as facets with
 * counts (project, agent, branch, age), the sessions (level 1) beside the matching turns of the selected one (level 2),
 * each result's confidence, and "no confident match" said plainly. Everything the page shows is in its URL
 * (`?q=…&project=…&source=…&branch=…&since=…&until=…&s=<session>`), so a result can be bookmarked.
 */
import type { Database } from "bun:sqlite";
import { ageBucketStarts, facetsOfFilters, type Facets } from "../search/listing/facets.ts";
import { searchIndex, type VectorLeg } from "../search/api.ts";
import { loadDateWords, parseFilterArgs } from "../search/listing/arguments.ts";
import {
  findSession,
  makePreview,
  noProjectLabel,
  parseLexicalQuery,
  previewPieces,
  type Preview,
  type SessionResult,
  type TurnResult,
} from "../search/index.ts";
import { isoLocalDate } from "../search/dates/calendar.ts";
import { lastTurns, recentSessions } from "../search/listing/recent.ts";
import { abstractLine, countOf } from "../render/format.ts";
import { noConfidentMatch } from "../render/search.ts";
import { html, urlWith, type SafeHtml } from "./html.ts";
import { pageHtml } from "./layout.ts";
import { ageLabel, dateTimeText, relativeDay } from "./dates.ts";
import { projectLabels } from "./project-labels.ts";

/** The page's state, as its URL holds it (every field a text; "" when absent). */
export interface SearchPageParams {
  q: string;
  project: string;
  source: string;
  branch: string;
  since: string;
  until: string;
  /** The selected session (its id); "" selects the first result. */
  s: string;
}

/** The URL parameters the page reads, from a request URL. */
export function searchParamsOf(url: URL): SearchPageParams {
  const get = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  return {
    q: get("q"),
    project: get("project"),
    source: get("source"),
    branch: get("branch"),
    since: get("since"),
    until: get("until"),
    s: get("s"),
  };
}

/** Sessions per page. */
export const pageSessions = 25;

/** A session row, from a search result or a recent session. */
interface SessionRow {
  sessionId: string;
  title: string;
  source: string;
  project: string;
  /** The project's folder ("" for none). */
  projectPath: string;
  when: number;
  turns: number;
  /** The first part of the session's abstract as `<source label>: <text>` (render/format.ts `abstractLine`), or "". */
  abstract: string;
  preview: Preview;
  confident: boolean | undefined;
  confidence: number | undefined;
  deleted: boolean;
}

/** A turn of the level-2 column. */
interface TurnRow {
  turn: number;
  when: number;
  prompt: Preview;
  answer: Preview;
  confident: boolean | undefined;
}

/** What the page shows, before it is HTML. */
export interface SearchPageModel {
  params: SearchPageParams;
  mode: string;
  /** The line above an answer with no confident match (render/search.ts noConfidentMatch); undefined otherwise. */
  noConfidentMatch: string | undefined;
  rows: SessionRow[];
  facets: Facets;
  selected: SessionRow | undefined;
  turns: TurnRow[];
  notices: string[];
  /** A usage problem with the filters (a date that cannot be read), shown instead of results. */
  problem: string | undefined;
}

/**
 * Run the page's search on `db`. `vectorLeg` joins the keyword leg when the index has vectors (hybrid).
 * @throws nothing for bad filters: the problem is returned in the model
 */
export async function searchPageModel(
  db: Database,
  params: SearchPageParams,
  vectorLeg: VectorLeg | undefined,
  vectorNotice?: string,
  now = Date.now(),
): Promise<SearchPageModel> {
  const empty: Facets = { project: [], source: [], branch: [], age: [] };
  let filters: ReturnType<typeof parseFilterArgs>;
  try {
    await loadDateWords([params.since, params.until]);
    filters = parseFilterArgs(params, now);
  } catch (error) {
    return {
      params,
      mode: "",
      noConfidentMatch: undefined,
      rows: [],
      facets: empty,
      selected: undefined,
      turns: [],
      notices: [],
      problem: (error as Error).message,
    };
  }
  const words = parseLexicalQuery(params.q).highlightWords;
  let rows: SessionRow[];
  let facets: Facets;
  let mode = "recent";
  let weak: string | undefined;
  let notices: string[] = [];
  if (params.q) {
    const response = await searchIndex(
      db,
      {
        query: params.q,
        level: "session",
        filters,
        limit: pageSessions,
        facets: true,
        now,
        mode: vectorLeg ? "hybrid" : "keyword",
      },
      vectorLeg,
    );
    rows = (response.results as SessionResult[]).map((result) => ({
      sessionId: result.sessionId,
      title: result.title || result.preview.text || "(no prompt)",
      source: result.source,
      project: result.project,
      projectPath: result.projectPath,
      when: result.endedAt || result.startedAt,
      turns: result.turns,
      abstract: abstractLine(result.abstract, 300) ?? "",
      preview: result.preview,
      confident: result.confident,
      confidence: result.confidence,
      deleted: result.sourceStatus === "deleted",
    }));
    facets = response.facets ?? empty;
    mode = response.mode;
    weak = noConfidentMatch(response);
    notices = vectorNotice ? [vectorNotice, ...response.notices] : response.notices;
  } else {
    rows = recentSessions(db, filters, pageSessions).items.map((session) => ({
      sessionId: session.sessionId,
      title: session.title || session.firstPrompt || "(no prompt)",
      source: session.source,
      project: session.project,
      projectPath: session.projectPath,
      when: session.endedAt || session.startedAt,
      turns: session.turns,
      abstract: abstractLine(session.abstract, 300) ?? "",
      preview: makePreview(session.lastPrompt, [], 240),
      confident: undefined,
      confidence: undefined,
      deleted: session.sourceStatus === "deleted",
    }));
    facets = facetsOfFilters(db, filters, now);
  }
  const selected = rows.find((row) => row.sessionId === params.s) ?? rows[0];
  let turns: TurnRow[] = [];
  if (selected && params.q) {
    const response = await searchIndex(
      db,
      {
        query: params.q,
        level: "turn",
        filters: { ...filters, sessionId: selected.sessionId, includeSubagents: true },
        limit: 20,
        now,
        mode: vectorLeg ? "hybrid" : "keyword",
      },
      vectorLeg,
    );
    turns = (response.results as TurnResult[]).map((turn) => ({
      turn: turn.turn,
      when: turn.timestamp,
      prompt: makePreview(turn.prompt, words, 400),
      answer: turn.responseExcerpt,
      confident: turn.confident,
    }));
  } else if (selected) {
    turns = lastTurns(db, findSession(db, selected.sessionId).rowid, 20).map((turn) => ({
      turn: turn.number,
      when: turn.timestamp,
      prompt: makePreview(turn.prompt, [], 400),
      answer: makePreview(turn.response, [], 300),
      confident: undefined,
    }));
  }
  return { params, mode, noConfidentMatch: weak, rows, facets, selected, turns, notices, problem: undefined };
}

/** A preview with its matches in `<mark>`. */
export function previewHtml(preview: Preview): SafeHtml {
  return html`${previewPieces(preview).map((piece) => (piece.matched ? html`<mark>${piece.text}</mark>` : piece.text))}`;
}

/** The URL of this page (under `base`) with some parameters changed (a facet toggled, a session selected). */
function linkWith(base: string, params: SearchPageParams, change: Partial<SearchPageParams>): string {
  return urlWith(`${base}/`, { ...params, ...change });
}

/**
 * One facet's list: each value a link that sets its URL parameters (or, when set, clears them), with its count and,
 * when given, a tooltip (`hint`: a project's whole path).
 */
function facetList(
  base: string,
  title: string,
  values: Array<{ label: string; count: number; param: Partial<SearchPageParams>; hint?: string }>,
  params: SearchPageParams,
): SafeHtml {
  if (values.length === 0) return html``;
  return html`<section class="facet"><h3>${title}</h3><ul>${values.slice(0, 12).map((value) => {
    // A value is on when the page's URL holds what it sets; its link then clears that, else sets it.
    const entries = Object.entries(value.param) as Array<[keyof SearchPageParams, string]>;
    const isOn = entries.every(([key, setTo]) => params[key] === setTo);
    const change = isOn ? Object.fromEntries(entries.map(([key]) => [key, ""])) : value.param;
    return html`<li><a href="${linkWith(base, params, { ...change, s: "" })}" class="${isOn ? "on" : ""}"${value.hint ? html` title="${value.hint}"` : ""}>${value.label}</a> <span class="count">${value.count}</span></li>`;
  })}</ul></section>`;
}

/** The page as HTML; its links start with `base` (layout.ts). */
export function searchPageHtml(model: SearchPageModel, base: string, now = Date.now()): string {
  const { params } = model;
  const starts = ageBucketStarts(now);
  const projects = projectLabels([
    ...model.facets.project.map((facet) => ({ path: facet.value, name: facet.name })),
    ...model.rows.map((row) => ({ path: row.projectPath, name: row.project })),
  ]);
  const facets = html`<aside class="facets" aria-label="Filters">
    ${facetList(
      base,
      "Project",
      model.facets.project.map((facet) => ({
        label: projects.get(facet.value) ?? facet.name,
        count: facet.count,
        // Sessions without a project folder: the search layer filters to them by this label (filters.ts).
        param: { project: facet.value || noProjectLabel },
        hint: facet.value,
      })),
      params,
    )}
    ${facetList(
      base,
      "Agent",
      model.facets.source.map((facet) => ({ label: facet.value, count: facet.count, param: { source: facet.value } })),
      params,
    )}
    ${facetList(
      base,
      "Branch",
      model.facets.branch.map((facet) => ({ label: facet.value, count: facet.count, param: { branch: facet.value } })),
      params,
    )}
    ${facetList(
      base,
      "Last active",
      model.facets.age
        .filter((facet) => facet.count > 0)
        .map((facet) => ({
          label: ageLabel(facet.value),
          count: facet.count,
          param:
            facet.value === "older"
              ? { since: "", until: isoLocalDate(starts["30d"]) }
              : { since: facet.value === "today" ? isoLocalDate(starts.today) : facet.value, until: "" },
        })),
      params,
    )}
  </aside>`;
  const banner = model.problem
    ? html`<p class="problem" role="alert">${model.problem}</p>`
    : params.q && model.rows.length === 0
      ? html`<p class="no-match">No match for “${params.q}”.</p>`
      : params.q && model.noConfidentMatch
        ? html`<p class="no-match" role="status">${model.noConfidentMatch}</p>`
        : html``;
  // The facets count every session the search ranked (or, without a query, every one the filters let through); the
  // list shows the first page of them.
  const total = model.facets.source.reduce((sum, facet) => sum + facet.count, 0);
  const shown =
    total > model.rows.length
      ? `${model.rows.length} of ${countOf(total, "session")}`
      : countOf(model.rows.length, "session");
  const heading = params.q
    ? html`<span class="shown">${shown}</span> for “${params.q}” <span class="mode">${model.mode}</span>`
    : html`Recent sessions <span class="shown">(${shown})</span>`;
  const sessions = html`<section class="sessions" aria-label="Sessions">
    <h2>${heading}</h2>
    ${banner}
    ${model.notices.map((notice) => html`<p class="notice">${notice}</p>`)}
    <ol class="results">${model.rows.map(
      (
        row,
      ) => html`<li class="result${row === model.selected ? " selected" : ""}" data-href="${base}/session/${encodeURIComponent(row.sessionId)}">
        <a class="title" href="${linkWith(base, params, { s: row.sessionId })}">${row.title}</a>
        ${confidenceBadge(row.confident, row.confidence)}
        <div class="meta"><span class="agent">${row.source}</span> · <span class="project"${row.projectPath ? html` title="${row.projectPath}"` : ""}>${projects.get(row.projectPath) ?? row.project}</span> · <time datetime="${new Date(row.when).toISOString()}" title="${dateTimeText(row.when)}">${relativeDay(row.when, now)}</time> · ${countOf(row.turns, "turn")}${row.deleted ? html` · <span class="archived">source deleted, kept by recall</span>` : ""}</div>
        ${row.abstract ? html`<p class="abstract">${row.abstract}</p>` : ""}
        <p class="preview">${previewHtml(row.preview)}</p>
        <a class="open" href="${base}/session/${encodeURIComponent(row.sessionId)}">Open</a>
      </li>`,
    )}</ol>
  </section>`;
  const selected = model.selected;
  const turns = selected
    ? html`<section class="turns" aria-label="Matching turns">
    <h2>${params.q ? "Matching turns" : "Last turns"} of <a href="${base}/session/${encodeURIComponent(selected.sessionId)}">${selected.title}</a></h2>
    <ol>${model.turns.map(
      (
        turn,
      ) => html`<li><a href="${base}/session/${encodeURIComponent(selected.sessionId)}#turn-${turn.turn}"><span class="turn-number">turn ${turn.turn}</span> <time>${relativeDay(turn.when, now)}</time></a>${confidenceBadge(turn.confident, undefined)}
        <p class="prompt">${previewHtml(turn.prompt)}</p>
        <p class="answer">${previewHtml(turn.answer)}</p></li>`,
    )}</ol>
  </section>`
    : html``;
  return pageHtml({
    title: params.q || "Search",
    kind: "search",
    base,
    query: params.q,
    body: html`<div class="search-layout">${facets}${sessions}${turns}</div>`,
  });
}

function confidenceBadge(confident: boolean | undefined, confidence: number | undefined): SafeHtml {
  if (confident === undefined) return html``;
  const value = confidence === undefined ? "" : ` ${Math.round(confidence * 100)}%`;
  return confident
    ? html`<span class="badge confident" title="confident match">confident${value}</span>`
    : html`<span class="badge weak" title="not a confident match">weak${value}</span>`;
}
