/**
 * The pages of a shareable read-only report: a folder that opens from the file system in any browser, with no server.
 * Browsers refuse `fetch` of local files, so the data travels as scripts that assign to a global
 * (`data/index.js`, `data/t-<n>.js`) and the pages read it from there. Every text of a trajectory is hostile input:
 * the index is written here with every text escaped, and the player sets text with `textContent` only.
 */
import { escapeHtml, htmlDocument } from "../html";
import type { StepContent } from "../types";

export interface ReportStep extends StepContent {
  index: number;
  /** Relative to the report's root, e.g. `images/<hash>.png`; null when the step has no screenshot. */
  image: string | null;
  width: number | null;
  height: number | null;
  marksBurnedIn: boolean;
}

export interface ReportEvaluation {
  /** "Human (consolidated)", "annotator 2", or the judge's name with k and prompt version. */
  source: string;
  verdict: string;
  detail: string | null;
}

export interface ReportTrajectory {
  /** Position in the report, 1-based: the player page is `t/<n>.html`. */
  n: number;
  task: string;
  taskId: string;
  taskSet: string;
  site: string | null;
  run: string;
  model: string | null;
  outcome: string;
  finalAnswer: string | null;
  evaluations: ReportEvaluation[];
  steps: ReportStep[];
}

export interface ReportAgreementRow {
  evaluator: string;
  /** Trajectories with both a success/failure human label and a success/failure verdict. */
  n: number;
  agreement: number | null;
  kappa: number | null;
}

export interface ReportIndex {
  title: string;
  createdAt: string;
  selection: string;
  trajectories: Omit<ReportTrajectory, "steps">[];
  agreement: ReportAgreementRow[] | null;
}

/**
 * A script that assigns `value` to `window[name]`. `<` is written as `\u003c` so that the text is safe even if someone
 * later inlines it in a page (a `</script>` in a thought would otherwise end the script there).
 */
export function dataScript(name: string, value: unknown): string {
  const json = JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return `window[${JSON.stringify(name)}] = ${json};\n`;
}

export function playerFileName(n: number): string {
  return `t/${n}.html`;
}

export function trajectoryDataFileName(n: number): string {
  return `data/t-${n}.js`;
}

const percent = (v: number | null): string => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
const fixed = (v: number | null): string => (v === null ? "–" : v.toFixed(3));

function page(title: string, root: string, body: string, scripts: string[]): string {
  const tags = scripts.map((s) => `<script src="${escapeHtml(s)}"></script>`).join("\n");
  return htmlDocument({ title, head: [`<link rel="stylesheet" href="${root}report.css">`], body: `${body}\n${tags}` });
}

function evaluationCells(t: Omit<ReportTrajectory, "steps">): string {
  if (!t.evaluations.length) return `<span class="muted">none published</span>`;
  return t.evaluations.map((e) => `<span class="ev ev-${escapeHtml(e.verdict)}">${escapeHtml(e.source)}: ${escapeHtml(e.verdict)}</span>`).join(" ");
}

/**
 * The published judges' agreement with the human labels. A judge with no pair (no verdict on a labelled trajectory)
 * has no figure to show: it is named under the table rather than given a row of dashes.
 */
function agreementTable(all: ReportAgreementRow[] | null): string {
  if (all === null) return "";
  const rows = all.filter((r) => r.n > 0);
  const unpaired = all.filter((r) => r.n === 0).map((r) => escapeHtml(r.evaluator));
  const none = unpaired.length
    ? `<p class="muted" id="agreement-unpaired">No verdict on a trajectory with a success or failure human label, so no agreement figure: ${unpaired.join(", ")}.</p>`
    : "";
  if (!rows.length) {
    const which = unpaired.length ? `: ${unpaired.join(", ")}` : "";
    return `<h2>Agreement with human labels</h2><p class="muted">No judge has verdicts on labelled trajectories of this selection${which}.</p>`;
  }
  const body = rows
    .map((r) => `<tr><td>${escapeHtml(r.evaluator)}</td><td>${r.n}</td><td>${percent(r.agreement)}</td><td>${fixed(r.kappa)}</td></tr>`)
    .join("\n");
  return `<h2>Agreement with human labels</h2>
<table class="agreement"><thead><tr><th>Evaluator</th><th>Pairs</th><th>Agreement</th><th>Cohen's κ</th></tr></thead>
<tbody>${body}</tbody></table>${none}`;
}

/** The report's front page: what it holds, the agreement table, and one row per trajectory linking to its player. */
export function indexHtml(index: ReportIndex): string {
  const rows = index.trajectories
    .map(
      (t) => `<tr>
<td><a href="${playerFileName(t.n)}">${t.n}</a></td>
<td><a href="${playerFileName(t.n)}">${escapeHtml(t.task)}</a><div class="muted">${escapeHtml(t.taskSet)} · ${escapeHtml(t.taskId)}</div></td>
<td>${escapeHtml(t.site ?? "–")}</td>
<td>${escapeHtml(t.run)}${t.model ? `<div class="muted">${escapeHtml(t.model)}</div>` : ""}</td>
<td>${escapeHtml(t.outcome)}</td>
<td>${evaluationCells(t)}</td>
</tr>`,
    )
    .join("\n");
  const body = `<main class="index">
<h1>${escapeHtml(index.title)}</h1>
<p class="muted">${index.trajectories.length} trajectories · ${escapeHtml(index.selection)} · created ${escapeHtml(index.createdAt)}</p>
${agreementTable(index.agreement)}
<h2>Trajectories</h2>
<table class="trajectories"><thead><tr><th>#</th><th>Task</th><th>Site</th><th>Run</th><th>Outcome</th><th>Evaluations</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p class="muted">Open a trajectory, then step with ← and →; “Copy link to this step” (or l) copies a link that opens it at that step. See manifest.json for what this report holds and withholds.</p>
</main>`;
  return page(index.title, "", body, []);
}

/** One trajectory's player page: an empty frame the player script fills from the trajectory's data script. */
export function playerHtml(t: Pick<ReportTrajectory, "n" | "task">, count: number): string {
  const prev = t.n > 1 ? `<a href="${t.n - 1}.html" id="prev-trajectory">← previous trajectory</a>` : "";
  const next = t.n < count ? `<a href="${t.n + 1}.html" id="next-trajectory">next trajectory →</a>` : "";
  const body = `<header class="bar"><a href="../index.html">All trajectories</a> ${prev} ${next}</header>
<main class="player" id="player"><noscript>The player needs JavaScript.</noscript></main>`;
  return page(`${t.n}. ${t.task}`, "../", body, [`../${trajectoryDataFileName(t.n)}`, "../player.js"]);
}

export const REPORT_CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1f2328; background: #fafafa; }
main { padding: 16px 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; }
table.agreement { width: auto; }
.muted { color: #6b7280; font-size: 12px; }
.ev { display: inline-block; border-radius: 4px; padding: 0 6px; margin: 1px 2px; background: #eef2ff; font-size: 12px; }
.ev-success { background: #dcfce7; } .ev-failure { background: #fee2e2; }
.bar { display: flex; gap: 16px; padding: 8px 24px; background: #111827; }
.bar a { color: #e5e7eb; }
.player { display: grid; grid-template-columns: minmax(0, 1fr) 380px; gap: 16px; }
.stage { position: relative; align-self: start; background: #000; }
.stage img { display: block; width: 100%; height: auto; }
.stage svg { position: absolute; inset: 0; width: 100%; height: 100%; }
.side { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.side pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #e5e7eb; padding: 8px; margin: 0; font: 12px/1.4 ui-monospace, monospace; }
.nav { display: flex; gap: 8px; align-items: center; }
.nav { flex-wrap: wrap; }
.nav button { padding: 4px 12px; }
.link-field { width: 100%; box-sizing: border-box; font: 12px ui-monospace, monospace; padding: 4px 6px; }
.noshot { padding: 48px; color: #9ca3af; text-align: center; }
`;

/**
 * The player, as plain browser script: draws the step's screenshot with its Set-of-Marks boxes and the action's
 * target, the thought and action, and moves between steps with the buttons and the arrow keys. Text goes into the
 * page through textContent only, never as HTML.
 *
 * Deep links, as the dashboard's (server/domain/trajectories/step-links.ts) but in the address's fragment, which a
 * file:// page can carry: `t/3.html#step=4&region=x,y,w,h` opens step 4 with that region of its screenshot (in the
 * screenshot's pixels) drawn. The fragment follows the step on screen, and "Copy link to this step" (or `l`) puts the
 * page's address with it on the clipboard; where the clipboard is refused, the link is shown to copy by hand.
 */
export const PLAYER_JS = `(function () {
  "use strict";
  var t = window.VERDICT_TRAJECTORY;
  var root = document.getElementById("player");
  if (!t || !root) return;
  var NS = "http://www.w3.org/2000/svg";
  function fromHash() {
    var q = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) { var i = kv.indexOf("="); if (i > 0) { try { q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* not a link of ours */ } } });
    var n = /^\\d{1,6}$/.test(q.step || "") ? Number(q.step) : 1;
    var m = /^(\\d{1,6}),(\\d{1,6}),(\\d{1,6}),(\\d{1,6})$/.exec(q.region || "");
    var r = m && Number(m[3]) > 0 && Number(m[4]) > 0 ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : null;
    return { at: Math.max(0, Math.min(t.steps.length - 1, n - 1)), region: r };
  }
  var linked = fromHash();
  var at = linked.at;
  // The region belongs to the step it was linked at; it is dropped once the player leaves that step.
  var region = linked.region;
  var copyState = "";
  function linkHash() { return "#step=" + (at + 1) + (region ? "&region=" + region.join(",") : ""); }
  function linkHref() { return location.href.replace(/#.*$/, "") + linkHash(); }
  function keepHash() {
    if (location.hash === linkHash()) return;
    try { history.replaceState(null, "", linkHash()); } catch (e) { location.replace(linkHash()); }
  }
  function copyLink() {
    var href = linkHref();
    var done = function () { copyState = "copied"; render(); };
    var refused = function () { copyState = "refused"; render(); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(href).then(done, refused);
    else refused();
  }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = String(text); return e; }
  function svg(tag, attrs) { var e = document.createElementNS(NS, tag); for (var k in attrs) e.setAttribute(k, String(attrs[k])); return e; }
  function overlay(step) {
    var s = svg("svg", { viewBox: "0 0 " + step.width + " " + step.height, preserveAspectRatio: "none" });
    var target = step.action && step.action.target != null ? String(step.action.target) : null;
    (step.elements || []).forEach(function (m) {
      if (!m.bbox) return;
      var hit = target !== null && String(m.label) === target;
      if (step.marksBurnedIn && !hit) return;
      s.appendChild(svg("rect", { x: m.bbox[0], y: m.bbox[1], width: m.bbox[2], height: m.bbox[3], fill: hit ? "rgba(239,68,68,0.18)" : "none",
        stroke: hit ? "#ef4444" : "#3b82f6", "stroke-width": hit ? 4 : 2, "data-mark": m.label, "class": hit ? "target" : "mark" }));
      var label = svg("text", { x: m.bbox[0] + 2, y: m.bbox[1] + 14, fill: hit ? "#ef4444" : "#1d4ed8", "font-size": 14, "font-weight": 700 });
      label.textContent = String(m.label);
      s.appendChild(label);
    });
    var c = step.action && step.action.coords;
    if (c) s.appendChild(svg("circle", { cx: c[0], cy: c[1], r: 10, fill: "none", stroke: "#ef4444", "stroke-width": 4, "class": "target" }));
    if (region) s.appendChild(svg("rect", { x: region[0], y: region[1], width: region[2], height: region[3], fill: "rgba(245,158,11,0.15)",
      stroke: "#f59e0b", "stroke-width": 4, "stroke-dasharray": "10 6", "class": "region" }));
    return s;
  }
  function render() {
    var step = t.steps[at];
    root.textContent = "";
    var stage = el("div", "stage");
    if (step && step.image) {
      var img = el("img"); img.src = "../" + step.image; img.alt = "Screenshot of step " + (at + 1); img.width = step.width; img.height = step.height;
      stage.appendChild(img);
      if (step.width && step.height) stage.appendChild(overlay(step));
    } else stage.appendChild(el("div", "noshot", "No screenshot for this step"));
    var side = el("div", "side");
    side.appendChild(el("h1", null, t.task));
    side.appendChild(el("div", "muted", t.taskSet + " · " + t.run + (t.site ? " · " + t.site : "") + " · outcome: " + t.outcome));
    var nav = el("div", "nav");
    var prev = el("button", null, "← Previous"); prev.id = "prev-step"; prev.disabled = at === 0; prev.onclick = function () { go(at - 1); };
    var next = el("button", null, "Next →"); next.id = "next-step"; next.disabled = at >= t.steps.length - 1; next.onclick = function () { go(at + 1); };
    var pos = el("span", null, t.steps.length ? "Step " + (at + 1) + " of " + t.steps.length : "No steps"); pos.id = "step-position";
    nav.appendChild(prev); nav.appendChild(pos); nav.appendChild(next);
    if (t.steps.length) {
      var copy = el("button", "copy-link", copyState === "copied" ? "Link copied" : "Copy link to this step");
      copy.id = "copy-step-link"; copy.title = "Copy a link that opens this page at this step (l)"; copy.onclick = copyLink;
      nav.appendChild(copy);
    }
    side.appendChild(nav);
    if (copyState === "refused") {
      var manual = el("input", "link-field"); manual.id = "step-link"; manual.readOnly = true; manual.value = linkHref();
      manual.setAttribute("aria-label", "Link to this step (the browser refused the clipboard: copy it from here)");
      side.appendChild(el("div", "muted", "The browser refused the clipboard; copy the link from here:"));
      side.appendChild(manual);
    }
    if (step) {
      if (step.url) side.appendChild(el("div", "muted", step.url));
      side.appendChild(el("h2", null, "Thought")); side.appendChild(el("pre", "thought", step.thought || "–"));
      side.appendChild(el("h2", null, "Action")); side.appendChild(el("pre", "action", step.actionRaw || (step.action && step.action.type) || "–"));
      if (step.error) { side.appendChild(el("h2", null, "Error")); side.appendChild(el("pre", "error", step.error)); }
    }
    if (t.finalAnswer) { side.appendChild(el("h2", null, "Final answer")); side.appendChild(el("pre", "answer", t.finalAnswer)); }
    side.appendChild(el("h2", null, "Evaluations"));
    if (!t.evaluations.length) side.appendChild(el("div", "muted", "None published"));
    t.evaluations.forEach(function (e) {
      var row = el("div", "ev ev-" + e.verdict, e.source + ": " + e.verdict);
      side.appendChild(row);
      if (e.detail) side.appendChild(el("pre", null, e.detail));
    });
    root.appendChild(stage); root.appendChild(side);
  }
  function go(i) { if (i < 0 || i >= t.steps.length || i === at) return; at = i; region = null; copyState = ""; keepHash(); render(); }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || (e.target && e.target.tagName === "INPUT")) return;
    if (e.key === "ArrowRight") { go(at + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(at - 1); e.preventDefault(); }
    else if (e.key === "l" && t.steps.length) { copyLink(); e.preventDefault(); }
  });
  // A link opened in the same tab (or edited in the address bar) moves the player there.
  window.addEventListener("hashchange", function () {
    if (location.hash === linkHash()) return;
    var next = fromHash(); at = next.at; region = next.region; copyState = ""; render();
  });
  if (t.steps.length && location.hash) keepHash();
  render();
})();
`;
