// recall ui: the one script of every page (served as /assets/app.js; the Content-Security-Policy allows no other).
// Every URL of the server starts with the path in <body data-base> (a per-server secret the cookie is scoped to).
// Keys: "/" focuses the search box, j/k move through the results, Enter opens the selected one. Session pages take
// new turns as the session grows (server-sent events from /events), the activity page draws its calendar and the
// usage page its bar charts with ECharts (/assets/echarts.min.js), and copy buttons copy the resume command.

const base = document.body.dataset.base ?? "";

/** @param {string} selector */
const all = (selector) => Array.from(document.querySelectorAll(selector));

function typingInField(event) {
  const target = event.target;
  return (
    target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

// Keyboard: "/" search, j/k move, Enter open.
let current = all(".result").findIndex((item) => item.classList.contains("selected"));
function select(index) {
  const items = all(".result");
  if (items.length === 0) return;
  current = Math.max(0, Math.min(items.length - 1, index));
  for (const item of items) item.classList.remove("keyboard");
  items[current].classList.add("keyboard");
  items[current].scrollIntoView({ block: "nearest" });
}
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && typingInField(event)) {
    event.target.blur();
    return;
  }
  if (typingInField(event) || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "/") {
    event.preventDefault();
    const box = document.getElementById("q");
    box?.focus();
    box?.select();
  } else if (event.key === "j") {
    select(current + 1);
  } else if (event.key === "k") {
    select(current - 1);
  } else if (event.key === "Enter" && current >= 0) {
    const item = all(".result")[current];
    const href = item?.dataset.href;
    if (href) window.location.assign(href);
  }
});

// Copy buttons: data-copy names the element whose text is copied.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.textContent ?? "");
    button.textContent = "Copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
    button.textContent = "Selected: press Ctrl-C";
  }
  setTimeout(() => {
    button.textContent = "Copy";
  }, 2000);
});

// Live updates: after each index update, a session page fetches the turns it does not show yet.
const sessionElement = document.querySelector("article.session");
if (sessionElement) {
  const id = sessionElement.dataset.session;
  let shown = Number(sessionElement.dataset.turns ?? "0");
  let fetching = false;
  const refresh = async () => {
    if (fetching) return;
    fetching = true;
    try {
      const response = await fetch(`${base}/session/${encodeURIComponent(id)}/turns?after=${shown}`);
      if (!response.ok) return;
      const update = await response.json();
      if (update.turns > shown && update.html) {
        sessionElement.querySelector(".turns-body")?.insertAdjacentHTML("beforeend", update.html);
        const index = sessionElement.querySelector(".turn-index");
        for (let number = shown + 1; number <= update.turns; number++)
          index?.insertAdjacentHTML("beforeend", `<a href="#turn-${number}">${number}</a> `);
        shown = update.turns;
        sessionElement.dataset.turns = String(shown);
        const count = sessionElement.querySelector(".turn-count");
        if (count) count.textContent = `${shown} turn${shown === 1 ? "" : "s"}`;
      }
    } finally {
      fetching = false;
    }
  };
  const events = new EventSource(`${base}/events`);
  events.addEventListener("indexed", () => void refresh());
}

// The search and activity pages say when the index changed under them (their numbers may be out of date).
if (!sessionElement && document.body.dataset.page !== "session") {
  const events = new EventSource(`${base}/events`);
  events.addEventListener("indexed", () => {
    if (document.getElementById("index-changed")) return;
    const notice = document.createElement("p");
    notice.id = "index-changed";
    notice.className = "notice";
    notice.setAttribute("role", "status");
    const link = document.createElement("a");
    link.href = window.location.pathname + window.location.search;
    link.textContent = "refresh";
    notice.append("New or changed sessions were indexed: ", link, " to see them.");
    document.querySelector("main")?.prepend(notice);
  });
}

/** Load ECharts (/assets/echarts.min.js) once, then call `draw`. */
function withECharts(draw) {
  const script = document.createElement("script");
  script.src = `${base}/assets/echarts.min.js`;
  script.onload = draw;
  document.head.appendChild(script);
}

// The activity page: a calendar heat map per slice (everything, a project, an agent), sessions or turns per day.
const chartElement = document.getElementById("activity-chart");
if (chartElement) {
  const data = JSON.parse(document.getElementById("activity-data")?.textContent ?? "{}");
  withECharts(() => drawActivity(chartElement, data));
}

// The usage page: bar charts from the specs it embeds (usage-charts.ts); the tables below them hold the same numbers.
const usageElements = all(".usage-chart");
if (usageElements.length > 0) {
  const specs = JSON.parse(document.getElementById("usage-data")?.textContent ?? "{}");
  withECharts(() => {
    for (const element of usageElements) drawBars(element, specs[element.dataset.chart]);
  });
}

/** Text for a tooltip, which ECharts shows as HTML: every name in it is session data. */
const escapeText = (text) => String(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A bar chart of `spec` {categories, series: [{name, data, stack?}], unit, horizontal?}, numbers on hover. */
function drawBars(element, spec) {
  if (!spec) return;
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  if (spec.horizontal) element.style.height = `${Math.max(160, 60 + spec.categories.length * 22)}px`;
  const chart = window.echarts.init(element, dark ? "dark" : undefined, { renderer: "canvas" });
  const money = spec.unit === "USD";
  const unit = (value) => (value === 1 && spec.unit.endsWith("s") ? spec.unit.slice(0, -1) : spec.unit);
  const format = (value) =>
    money ? `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}` : `${value.toLocaleString("en-US")} ${unit(value)}`;
  const legend = spec.series.length > 1;
  const categories = { type: "category", data: spec.categories, axisLabel: { width: 150, overflow: "truncate" } };
  // counts (sessions, turns, calls, tokens) are whole: no 0.2 ticks on a chart of one session
  const values = { type: "value", minInterval: money ? 0 : 1 };
  chart.setOption({
    backgroundColor: "transparent",
    tooltip: {
      trigger: "axis",
      axisPointer: { type: "shadow" },
      formatter: (items) => {
        const list = (Array.isArray(items) ? items : [items]).filter((item) => item.value > 0 || !legend);
        const head = escapeText((Array.isArray(items) ? items[0] : items)?.axisValue ?? "");
        return [head, ...list.map((item) => `${escapeText(item.seriesName)}: ${escapeText(format(item.value))}`)].join(
          "<br>",
        );
      },
    },
    legend: legend ? { type: "scroll", top: 0 } : { show: false },
    grid: { left: spec.horizontal ? 160 : 60, right: 20, top: legend ? 32 : 10, bottom: 30 },
    xAxis: spec.horizontal ? values : categories,
    yAxis: spec.horizontal ? { ...categories, inverse: true } : values,
    series: spec.series.map((series) => ({ type: "bar", name: series.name, data: series.data, stack: series.stack })),
  });
  window.addEventListener("resize", () => chart.resize());
  element.dataset.ready = "true";
}

function drawActivity(element, data) {
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  const chart = window.echarts.init(element, dark ? "dark" : undefined, { renderer: "canvas" });
  const sliceSelect = document.getElementById("activity-slice");
  const measureSelect = document.getElementById("activity-measure");
  const seriesOf = (value) => {
    const [kind, key] = value.split(/:(.*)/s);
    if (kind === "project") return data.projects.find((series) => series.key === key) ?? data.all;
    if (kind === "agent") return data.agents.find((series) => series.key === key) ?? data.all;
    return data.all;
  };
  const draw = () => {
    const series = seriesOf(sliceSelect.value);
    const measure = Number(measureSelect.value);
    const points = series.days.map((day) => [day[0], day[measure]]);
    const max = Math.max(1, ...points.map((point) => point[1]));
    chart.setOption(
      {
        backgroundColor: "transparent",
        tooltip: {
          formatter: (item) => `${item.value[0]}: ${item.value[1]} ${measure === 2 ? "turns" : "sessions"}`,
        },
        // The legend says what its ends mean: 0 and the busiest day's count (issue 38: a ramp without numbers).
        visualMap: {
          min: 0,
          max,
          text: [`${max} ${measure === 2 ? (max === 1 ? "turn" : "turns") : max === 1 ? "session" : "sessions"}`, "0"],
          textStyle: { color: dark ? "#9198a1" : "#59636e" },
          calculable: false,
          orient: "horizontal",
          left: "center",
          bottom: 0,
          inRange: { color: dark ? ["#1f2937", "#2563eb", "#93c5fd"] : ["#eef2ff", "#60a5fa", "#1e3a8a"] },
        },
        calendar: {
          range: [data.from, data.to],
          cellSize: ["auto", 14],
          top: 30,
          left: 40,
          right: 20,
          yearLabel: { show: false },
          dayLabel: { firstDay: 1, nameMap: "en" },
          monthLabel: { nameMap: "en" },
        },
        series: [{ type: "heatmap", coordinateSystem: "calendar", data: points }],
      },
      true,
    );
  };
  chart.on("click", async (item) => {
    const date = item.value?.[0];
    if (!date) return;
    const list = document.getElementById("activity-day");
    const response = await fetch(`${base}/activity/day?date=${encodeURIComponent(date)}`);
    list.innerHTML = await response.text();
    current = -1;
  });
  sliceSelect.addEventListener("change", draw);
  measureSelect.addEventListener("change", draw);
  window.addEventListener("resize", () => chart.resize());
  draw();
  element.dataset.ready = "true";
}
