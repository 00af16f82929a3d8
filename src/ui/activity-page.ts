/**
 * The activity page of `recall ui` (`/activity`): a calendar heat map of the last year, sessions or turns per day, for
 * everything or one project or one agent (ECharts' calendar heat map, drawn by /assets/app.js from the data this page
 * embeds as JSON); a click on a day lists that day's sessions (`/activity/day?date=…`, an HTML fragment).
 */
import type { Database } from "bun:sqlite";
import { readActivity, type Activity } from "../search/listing/activity.ts";
import { recentSessions } from "../search/listing/recent.ts";
import { relativeDay } from "./dates.ts";
import { countOf, projectLabel } from "../render/format.ts";
import { html, jsonScriptData } from "./html.ts";
import { pageHtml } from "./layout.ts";
import { projectLabels } from "./project-labels.ts";

/** Days shown: a year back from today. */
export const activityDays = 365;

/** The local midnight {@link activityDays} − 1 days before `now` (epoch ms): where the activity and usage pages start. */
export function yearBackStart(now: number): number {
  const start = new Date(now - (activityDays - 1) * 86_400_000);
  start.setHours(0, 0, 0, 0);
  return start.getTime();
}

/** The activity of the last {@link activityDays} days up to `now` (epoch ms). */
export function activityModel(db: Database, now = Date.now()): Activity {
  return readActivity(db, {}, yearBackStart(now), now);
}

/** The page as HTML; its links start with `base` (layout.ts). */
export function activityPageHtml(activity: Activity, base: string): string {
  const turns = activity.all.turns;
  const labels = projectLabels(activity.projects.map((series) => ({ path: series.key, name: series.label })));
  const body = html`<section class="activity">
  <h1>Activity</h1>
  <p class="summary">${activity.from} to ${activity.to}: ${countOf(turns, "turn")} on ${countOf(activity.all.days.length, "day")}.</p>
  <div class="activity-controls">
    <label>Show <select id="activity-slice" aria-label="Which sessions">
      <option value="all:">everything</option>
      <optgroup label="Project">${activity.projects.map((series) => html`<option value="project:${series.key}"${series.key ? html` title="${series.key}"` : ""}>${labels.get(series.key) ?? series.label}</option>`)}</optgroup>
      <optgroup label="Agent">${activity.agents.map((series) => html`<option value="agent:${series.key}">${series.label}</option>`)}</optgroup>
    </select></label>
    <label>Count <select id="activity-measure" aria-label="What to count"><option value="2">turns</option><option value="1">sessions</option></select></label>
  </div>
  <div id="activity-chart" class="chart" role="img" aria-label="Calendar heat map of activity per day"></div>
  <section id="activity-day" class="day-list" aria-live="polite"><p class="hint">Click a day to list its sessions.</p></section>
  <script type="application/json" id="activity-data">${jsonScriptData(activity)}</script>
</section>`;
  return pageHtml({ title: "Activity", kind: "activity", base, body });
}

/** The sessions active on local day `date` (YYYY-MM-DD), newest first, as an HTML fragment; links start with `base`. */
export function dayListHtml(db: Database, date: string, base: string, now = Date.now()): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return html`<p class="problem">Not a date: ${date}</p>`.markup;
  const start = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])).getTime();
  const end = start + 86_400_000 - 1;
  const sessions = recentSessions(db, { since: start, until: end }, 100).items;
  return html`<h2>${date}: ${countOf(sessions.length, "session")}</h2><ol class="results">${sessions.map(
    (
      session,
    ) => html`<li class="result" data-href="${base}/session/${encodeURIComponent(session.sessionId)}"><a class="title" href="${base}/session/${encodeURIComponent(session.sessionId)}">${session.title || session.firstPrompt || "(no prompt)"}</a>
      <div class="meta"><span class="agent">${session.source}</span> · <span class="project"${session.projectPath ? html` title="${session.projectPath}"` : ""}>${projectLabel(session.project)}</span> · ${relativeDay(session.endedAt, now)} · ${countOf(session.turns, "turn")}</div></li>`,
  )}</ol>`.markup;
}
