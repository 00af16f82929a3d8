/**
 * The picker's screen (Ink + React): the query line, the session list (or, after Tab, the selected session's matching
 * turns), a preview of the best turn with the query's words highlighted, and in place of both, after Ctrl-O, the turns
 * as `recall show` prints them, scrollable. Results update as you type: the keyword search answers on each key press,
 * drawn in the key's own frame while it answers quickly ({@link keyWaitsForResultsMs}); when a vector leg is ready,
 * the hybrid ranking replaces it a moment later, never holding a key press up (it is awaited off the input path, and a
 * stale answer is dropped). What the person chose is the app's exit value.
 */
import { Box, Text, useApp, useInput, useWindowSize } from "ink";
import { memo, useEffect, useRef, useState, type ReactNode } from "react";
import { errorLine } from "../render/escapes.ts";
import { countOf } from "../render/format.ts";
import { fitWidth, relativeDate, wrapToWidth } from "./columns.ts";
import { actionOf, editQuery, moveSelection, type PickAction, type QueryLine } from "./keys.ts";
import { rowCells, screenLayout, windowStart } from "./layout.ts";
import { listPageFor, type PickRow, type PickTurn, type SessionList } from "./picker-search.ts";
import { highlightedRows } from "./preview-rows.ts";

/** What the picker ends with: a session to resume, or nothing (Esc, Ctrl-C). */
export type PickOutcome = { kind: "resume"; row: PickRow } | { kind: "quit" };

/** What the screen needs from the rest of the picker. */
export interface PickAppProps {
  /** The query the picker opens with (the command line's QUERY; "" lists recent sessions). */
  initialQuery: string;
  /** The first `limit` sessions for a query; `semantic` asks for the hybrid ranking (once {@link semanticReady}). */
  sessions(query: string, semantic: boolean, limit: number): Promise<SessionList>;
  /** The matching turns of a session (level 2), best first. */
  turns(row: PickRow, query: string, semantic: boolean): Promise<PickTurn[]>;
  /** Level 3: turns `from`..`to` of a session, one string per line. @throws on an unreadable session */
  showLines(row: PickRow, from: number, to: number): string[];
  /** Opens the lines in the person's pager (the app hands the terminal over meanwhile). */
  openPager(lines: string[]): Promise<void>;
  /** Resolves once the semantic leg is ready (`ready`), or with the reason there is none (`note`, for the status line). */
  semanticReady: Promise<{ ready: boolean; note?: string }>;
  /** Resolves each time a background index run committed (the results are fetched again), with a note. */
  subscribeIndexUpdates(listener: (note: string) => void): void;
  /** Colours on; off under NO_COLOR or a dumb terminal (selection and highlights then use inverse and bold). */
  colors: boolean;
  /** A note shown in the status line at start (e.g. "updating the index…"). */
  initialNote?: string;
}

/** Delay of the preview's turns search after a new list, in ms: longer than one frame at run-picker.tsx's maxFps. */
const previewDelayMs = 12;

/** Most sessions the list grows to by paging down (searchIndex takes up to 1000). */
const maxListLimit = 500;

/** Delay before the hybrid ranking of the query typed so far is asked for, in ms (typing stays keyword-fast). */
const semanticDelayMs = 120;

/**
 * Longest a typed key waits for its keyword results, in ms: while the last list search answered within it, a key that
 * changes the query is drawn together with its results, in one frame; after a slower one the key is drawn first and
 * the results in a second frame. A frame of this screen costs about as much for the query line alone as for a new
 * list (Ink lays out and writes the whole screen: 4–15 ms here), so one frame brings each key's results that much
 * sooner. 50 ms keeps the key's echo (the search, then the frame) under 0.1 s, the limit under which a response feels
 * instantaneous (Nielsen, Usability Engineering, 1993, ch. 5); a keyword search at 20,000 sessions takes 8–40 ms on
 * the 2-core bench machine.
 */
const keyWaitsForResultsMs = 50;

type View = "sessions" | "turns" | "read";

/** The lists Ctrl-O can be pressed from: Esc (or Ctrl-O again) from reading goes back to it. */
type ListView = Exclude<View, "read">;

/** The picker's screen; exits (Ink's `exit`) with a {@link PickOutcome}. */
export function PickApp(props: PickAppProps): ReactNode {
  const { exit, suspendTerminal } = useApp();
  const { columns, rows } = useWindowSize();
  const layout = screenLayout(columns, rows);
  const [line, setLine] = useState<QueryLine>({ text: props.initialQuery, cursor: props.initialQuery.length });
  const [list, setList] = useState<SessionList | undefined>(undefined);
  const listPage = listPageFor(layout.listRows);
  const [pagedLimit, setPagedLimit] = useState(listPage);
  // at least a page of the list as tall as it is now: a terminal made taller fetches enough to fill it
  const limit = Math.max(pagedLimit, listPage);
  const [selected, setSelected] = useState(0);
  const [view, setView] = useState<View>("sessions");
  const [turnList, setTurnList] = useState<{ key: string; turns: PickTurn[] } | undefined>(undefined);
  const [turnSelected, setTurnSelected] = useState(0);
  const [reading, setReading] = useState<
    { lines: string[]; scroll: number; label: string; from: ListView } | undefined
  >(undefined);
  const [semantic, setSemantic] = useState(false);
  const [note, setNote] = useState(props.initialNote ?? "");
  const [indexVersion, setIndexVersion] = useState(0);
  const latest = useRef(0);
  // What is on screen now, for answers that arrive later (read in callbacks, so a ref, not state).
  const shown = useRef<{ query: string | undefined; sessionId: string | undefined }>({
    query: undefined,
    sessionId: undefined,
  });
  shown.current = { query: list?.query, sessionId: list?.rows[selected]?.sessionId };
  // The query line as typed: ahead of `line` while a key waits for its results (keys read meanwhile edit this one).
  const typed = useRef(line);
  // How long the last list search took (ms).
  const lastSearchMs = useRef(Number.POSITIVE_INFINITY);
  // What the list answers when it is a keyword answer, as `query␀limit␀index state` ("" for a hybrid answer): the
  // search effect does not fetch it again (a key brought it).
  const [listAnswers, setListAnswers] = useState("");
  const keywordKey = (query: string, listLimit: number) => `${query}\u0000${listLimit}\u0000${indexVersion}`;

  /**
   * Show `answer` (`answers`: see listAnswers) unless a newer search started after `ticket`; the selection stays on its
   * session when only the ranking changed.
   */
  const keep = (ticket: number, answer: SessionList, answers: string) => {
    if (ticket !== latest.current) return;
    const kept = shown.current.query === answer.query ? shown.current.sessionId : undefined;
    setList(answer);
    setListAnswers(answers);
    setSelected(Math.max(0, kept ? answer.rows.findIndex((row) => row.sessionId === kept) : 0));
  };
  /** The sessions for `query`, timed into {@link lastSearchMs} when keyword-only. */
  const listFor = (query: string, semanticList: boolean, listLimit: number): Promise<SessionList> => {
    const started = performance.now();
    return props.sessions(query, semanticList, listLimit).then((answer) => {
      if (!semanticList) lastSearchMs.current = performance.now() - started;
      return answer;
    });
  };

  useEffect(() => {
    let live = true;
    props.semanticReady.then(({ ready, note: readyNote }) => {
      if (!live) return;
      if (ready) setSemantic(true);
      if (readyNote) setNote(readyNote);
    });
    props.subscribeIndexUpdates((updateNote) => {
      if (!live) return;
      setNote(updateNote);
      setIndexVersion((version) => version + 1);
    });
    return () => {
      live = false;
    };
  }, [props]);

  // Results for the query: keyword at once (unless the key brought them), hybrid shortly after when the vector leg is
  // ready. A new index state (indexVersion) searches again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: indexVersion is the trigger, not an input
  useEffect(() => {
    const ticket = ++latest.current;
    const query = line.text;
    const fail = (error: unknown) => ticket === latest.current && setNote(errorLine(error));
    // After this frame (the query line as typed) is drawn: the keyword search is synchronous SQLite work.
    const answers = keywordKey(query, limit);
    const keyword =
      listAnswers === answers
        ? undefined
        : setTimeout(() => {
            if (ticket === latest.current)
              listFor(query, false, limit).then((answer) => keep(ticket, answer, answers), fail);
          }, 0);
    const hybrid =
      semantic && query.trim() !== ""
        ? setTimeout(() => {
            if (ticket === latest.current) listFor(query, true, limit).then((answer) => keep(ticket, answer, ""), fail);
          }, semanticDelayMs)
        : undefined;
    return () => {
      clearTimeout(keyword);
      clearTimeout(hybrid);
    };
  }, [line.text, limit, semantic, indexVersion, props]);

  // Near the end of what was fetched: fetch the next page (the selection stays on its session).
  useEffect(() => {
    const count = list?.rows.length ?? 0;
    if (list?.more && selected >= count - 3)
      setPagedLimit((current) => Math.max(current, Math.min(maxListLimit, count + listPage)));
  }, [selected, list, listPage]);

  const row = list?.rows[selected];
  const turnsKey = row ? `${row.sessionId}\u0000${list?.query}\u0000${semantic}\u0000${indexVersion}` : "";

  // The selected session's turns: its best turn is the preview; all of them are level 2.
  // biome-ignore lint/correctness/useExhaustiveDependencies: turnsKey names everything the answer depends on
  useEffect(() => {
    if (!row || !list) return setTurnList(undefined);
    if (turnList?.key === turnsKey) return;
    let live = true;
    // After the list's frame is out: the turns search is synchronous SQLite work, and run at once it held back Ink's
    // throttled frame of the new list by its own duration (13–30 ms measured on the real corpus).
    const timer = setTimeout(() => {
      props.turns(row, list.query, semantic).then(
        (turns) => {
          if (!live) return;
          setTurnList({ key: turnsKey, turns });
          setTurnSelected(0);
        },
        (error) => live && setNote(errorLine(error)),
      );
    }, previewDelayMs);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [turnsKey]);

  const turns = turnList?.key === turnsKey ? turnList.turns : undefined;
  const previewTurn = turns?.[view === "turns" ? turnSelected : 0];

  const readTurn = (): { from: number; to: number } | undefined => {
    if (!row) return undefined;
    const turn = previewTurn?.turn ?? (row.bestTurn > 0 ? row.bestTurn : Math.max(1, row.turns));
    return turn > 0 ? { from: turn, to: turn } : undefined;
  };

  const openRead = (): string[] | undefined => {
    const range = readTurn();
    if (!row || !range) return undefined;
    try {
      return props.showLines(row, range.from, range.to);
    } catch (error) {
      setNote(errorLine(error));
      return undefined;
    }
  };

  // Level 3 in place: the turns wrapped to the terminal's width, scrolled by rows.
  const readHeight = layout.listRows + layout.previewRows + 1;
  const readRows = view === "read" && reading ? wrapToWidth(reading.lines, layout.columns) : [];

  const apply = (action: PickAction) => {
    const count = view === "turns" ? (turns?.length ?? 0) : (list?.rows.length ?? 0);
    const moveTo = (next: (current: number) => number) => {
      if (view === "read") {
        const lastTop = Math.max(0, readRows.length - readHeight);
        setReading((current) =>
          current ? { ...current, scroll: Math.max(0, Math.min(lastTop, next(current.scroll))) } : current,
        );
      } else if (view === "turns") setTurnSelected((current) => moveSelection(current, next(current) - current, count));
      // from the selection as it is, not as the last frame drew it: keys read before a redraw (a held arrow key) all move
      else setSelected((current) => moveSelection(current, next(current) - current, count));
    };
    const page = view === "read" ? layout.listRows + layout.previewRows : layout.listRows;
    switch (action.kind) {
      case "edit": {
        if (view === "read") return;
        const next = editQuery(typed.current, action.edit);
        const changed = next.text !== typed.current.text;
        typed.current = next;
        const show = () => {
          setLine(next);
          if (!changed) return;
          setPagedLimit(listPage);
          if (view === "turns") setView("sessions");
        };
        if (!changed || lastSearchMs.current > keyWaitsForResultsMs) return show();
        // One frame for the key and its results: nothing is set until the (synchronous) keyword search answered.
        // The key is shown whatever the answer, unless a later key was typed meanwhile (it shows itself).
        const ticket = ++latest.current;
        const showUnlessTypedOn = () => typed.current === next && show();
        listFor(next.text, false, listPage).then(
          (answer) => {
            showUnlessTypedOn();
            keep(ticket, answer, keywordKey(next.text, listPage));
          },
          (error) => {
            showUnlessTypedOn();
            if (ticket === latest.current) setNote(errorLine(error));
          },
        );
        return;
      }
      case "move":
        return moveTo((current) => current + action.by);
      case "page":
        return moveTo((current) => current + action.by * page);
      case "first":
        return moveTo(() => 0);
      case "last":
        return moveTo(() => Number.MAX_SAFE_INTEGER);
      case "toggle-turns":
        if (view === "read") return;
        setView(view === "turns" ? "sessions" : "turns");
        setTurnSelected(0);
        return;
      case "read": {
        if (view === "read") return setView(reading?.from ?? "sessions");
        const lines = openRead();
        const range = readTurn();
        if (lines && range) {
          setReading({ lines, scroll: 0, label: `turn ${range.from}`, from: view });
          setView("read");
        }
        return;
      }
      case "pager": {
        const lines = view === "read" && reading ? reading.lines : openRead();
        if (lines) suspendTerminal(() => props.openPager(lines)).catch((error) => setNote(errorLine(error)));
        return;
      }
      case "resume":
        if (row) exit({ kind: "resume", row } satisfies PickOutcome);
        return;
      case "back":
        if (view === "read") return setView(reading?.from ?? "sessions");
        if (view === "turns") return setView("sessions");
        return exit({ kind: "quit" } satisfies PickOutcome);
      case "quit":
        return exit({ kind: "quit" } satisfies PickOutcome);
      case "none":
        return;
      default:
        return action satisfies never;
    }
  };

  useInput((input, key) => apply(actionOf(input, key)));

  // Relative dates are as of the list's answer: a key press that changes nothing else redraws no row.
  const now = list?.answeredAt ?? 0;
  const colors = props.colors;
  const width = layout.columns;

  const queryLine = (
    <Box height={1}>
      <Text>
        {colors ? <Text color="cyan">{"recall › "}</Text> : "recall › "}
        {fitWidth(line.text.slice(0, line.cursor), Math.max(1, width - 12))}
        <Text inverse>{line.text.slice(line.cursor, line.cursor + 1) || " "}</Text>
        {line.text.slice(line.cursor + 1)}
      </Text>
    </Box>
  );

  const statusText = statusOf(list, view, row, turns, semantic);
  const statusLine = (
    <Box height={1}>
      <Text wrap="truncate" dimColor={colors}>
        {fitWidth(note ? `${statusText}  ·  ${note}` : statusText, width)}
      </Text>
    </Box>
  );

  const hints = (
    <Box height={1}>
      <Text wrap="truncate" dimColor={colors}>
        {fitWidth(
          view === "read"
            ? "↑↓ PgUp PgDn Home End scroll · ^G pager · enter resume · esc back"
            : view === "turns"
              ? "↑↓ turn · ^O read · ^G pager · enter resume · tab/esc sessions"
              : "↑↓ ^N ^P move · tab turns · ^O read · ^G pager · enter resume · esc quit",
          width,
        )}
      </Text>
    </Box>
  );

  if (view === "read" && reading) {
    const height = readHeight;
    const top = Math.min(reading.scroll, Math.max(0, readRows.length - height));
    return (
      <Box flexDirection="column" width={width} height={rows}>
        {queryLine}
        <Box height={1}>
          <Text wrap="truncate" bold>
            {fitWidth(`${row?.title ?? ""} · ${reading.label} · row ${top + 1} of ${readRows.length}`, width)}
          </Text>
        </Box>
        <Box height={height} flexDirection="column" overflow="hidden">
          {readRows.slice(top, top + height).map((text, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their position
            <Text key={index} wrap="truncate">
              {text || " "}
            </Text>
          ))}
        </Box>
        {hints}
      </Box>
    );
  }

  const listBody =
    view === "turns" ? (
      <TurnRows turns={turns ?? []} selected={turnSelected} visible={layout.listRows} width={width} now={now} />
    ) : (
      <SessionRows
        rows={list?.rows ?? []}
        selected={selected}
        visible={layout.listRows}
        width={width}
        colors={colors}
        now={now}
      />
    );

  return (
    <Box flexDirection="column" width={width} height={rows}>
      {queryLine}
      {statusLine}
      <Box height={layout.listRows} flexDirection="column" overflow="hidden">
        {listBody}
      </Box>
      <Box height={1}>
        <Text dimColor={colors}>{"─".repeat(width)}</Text>
      </Box>
      <Box height={layout.previewRows} flexDirection="column" overflow="hidden">
        <PreviewPane row={row} turn={previewTurn} width={width} colors={colors} now={now} />
      </Box>
      {hints}
    </Box>
  );
}

/** The status line: how many results, what ran, and whether the answer is confident. */
function statusOf(
  list: SessionList | undefined,
  view: View,
  row: PickRow | undefined,
  turns: PickTurn[] | undefined,
  semantic: boolean,
): string {
  if (!list) return "searching…";
  if (view === "turns" && row)
    return `${countOf(turns?.length ?? 0, "matching turn")} of ${row.turns} in “${fitWidth(row.title, 40)}”`;
  if (list.mode === "recent")
    return list.rows.length === 0 ? "no sessions indexed yet" : `recent sessions (${list.rows.length})`;
  const query = `“${fitWidth(list.query, 40)}”`;
  if (list.rows.length === 0) return `no match for ${query}`;
  const mode = list.mode === "hybrid" ? "hybrid" : semantic ? "keyword (hybrid next)" : "keyword";
  const count = `${list.more ? "first " : ""}${countOf(list.rows.length, "session")}`;
  return `${list.confident ? "" : "no confident match · "}${count} for ${query} · ${mode}`;
}

/** What a list of rows needs: the window of rows around the selection, each drawn by `cells`. */
interface ListWindowProps<Item> {
  items: Item[];
  selected: number;
  visible: number;
  keyOf(item: Item): string | number;
  /** The row's text after the selection marker (`› ` or two spaces). */
  cells(item: Item): ReactNode;
}

/** The visible rows of a list, the selected one marked `›` and drawn inverse, scrolled to keep it in view. */
function ListWindow<Item>(props: ListWindowProps<Item>): ReactNode {
  const start = windowStart(props.selected, props.visible, props.items.length);
  return (
    <>
      {props.items.slice(start, start + props.visible).map((item, offset) => {
        const isSelected = start + offset === props.selected;
        return (
          <Text key={props.keyOf(item)} wrap="truncate" inverse={isSelected}>
            {isSelected ? "› " : "  "}
            {props.cells(item)}
          </Text>
        );
      })}
    </>
  );
}

/** The visible session rows (memoized: a key press that only edits the query redraws none). */
const SessionRows = memo(function SessionRows(props: {
  rows: PickRow[];
  selected: number;
  visible: number;
  width: number;
  colors: boolean;
  now: number;
}): ReactNode {
  const painted = (text: string, color: string) => (props.colors ? <Text color={color}>{text}</Text> : text);
  return (
    <ListWindow
      items={props.rows}
      selected={props.selected}
      visible={props.visible}
      keyOf={(row) => row.sessionId}
      cells={(row) => {
        const cells = rowCells(row, props.width, props.now);
        return (
          <>
            {painted(cells.agent, "magenta")} {painted(cells.project, "blue")} {painted(cells.date, "green")}{" "}
            {cells.title} {painted(cells.weak, "gray")}
          </>
        );
      }}
    />
  );
});

/** The visible turn rows of level 2 (memoized as {@link SessionRows}). */
const TurnRows = memo(function TurnRows(props: {
  turns: PickTurn[];
  selected: number;
  visible: number;
  width: number;
  now: number;
}): ReactNode {
  return (
    <ListWindow
      items={props.turns}
      selected={props.selected}
      visible={props.visible}
      keyOf={(turn) => turn.turn}
      cells={(turn) => {
        const label = `turn ${turn.turn < 0 ? `r${-turn.turn}` : turn.turn}`.padEnd(9);
        const weak = turn.confident ? "" : " weak";
        const prompt = fitWidth(turn.prompt.text, Math.max(8, props.width - 24 - weak.length));
        return `${label} ${relativeDate(turn.when, props.now).padEnd(9)} ${prompt}${weak}`;
      }}
    />
  );
});

/**
 * The preview: the session's abstract (two rows at most, dim), then the best (or selected) turn, its prompt and answer
 * with the query's words highlighted (memoized).
 */
const PreviewPane = memo(function PreviewPane(props: {
  row: PickRow | undefined;
  turn: PickTurn | undefined;
  width: number;
  colors: boolean;
  now: number;
}): ReactNode {
  const { row, turn } = props;
  if (!row) return <Text dimColor={props.colors}>nothing to preview</Text>;
  const where = row.projectPath || row.project;
  const archived = row.sourceStatus === "deleted" ? " · source deleted, kept by recall" : "";
  const header = turn
    ? `turn ${turn.turn} of ${row.turns} · ${relativeDate(turn.when, props.now)}${turn.tools.length > 0 ? ` · ${turn.tools.join(", ")}` : ""} · ${where}${archived}`
    : `${row.turns} turns · ${where}${archived}`;
  const about = row.abstract ? wrapToWidth([row.abstract], props.width).slice(0, 2) : [];
  const rows = turn
    ? [
        ...highlightedRows(turn.prompt, {
          width: props.width,
          colors: props.colors,
          limit: props.width * 4,
          prefix: "› ",
        }),
        ...(turn.answer.text
          ? highlightedRows(turn.answer, { width: props.width, colors: props.colors, limit: props.width * 8 })
          : []),
      ]
    : wrapToWidth([row.title], props.width);
  return (
    <>
      <Box flexShrink={0}>
        <Text wrap="truncate" bold>
          {fitWidth(header, props.width)}
        </Text>
      </Box>
      {about.map((text, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position
        <Text key={`about-${index}`} wrap="truncate" dimColor={props.colors}>
          {text || " "}
        </Text>
      ))}
      {rows.map((text, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position
        <Text key={index} wrap="truncate">
          {text || " "}
        </Text>
      ))}
    </>
  );
});
