/**
 * The pages' one stylesheet and one script, served from this process (`/ui/app.css`, `/ui/app.js`)
 * so the Content-Security-Policy can forbid every inline script and style, and nothing comes from
 * the network. The script only polls the progress of running jobs and writes text (never HTML).
 */

export const APP_CSS = `
:root { color-scheme: light dark; --fg: #1d1f23; --bg: #f6f7f9; --card: #fff; --muted: #667; --line: #dde1e6; --accent: #2a7ae2; --bad: #c0392b; --good: #1e8449; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #15171a; --card: #1f2226; --muted: #99a; --line: #30343a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: baseline; padding: .8rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--card); }
header h1 { font-size: 1.1rem; margin: 0; }
header nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
main { padding: 1rem 1.5rem 3rem; }
h2 { font-size: 1.05rem; margin: 1.6rem 0 .6rem; }
form.filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin-bottom: 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
select, input[type=search], button { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: var(--card); color: var(--fg); }
button { cursor: pointer; }
ul.gallery { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 1rem; }
li.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; display: flex; flex-direction: column; }
li.card .media { background: #0b0c0e; aspect-ratio: 4 / 3; min-height: 0; overflow: hidden; display: flex; align-items: center; justify-content: center; }
li.card .media a { display: contents; }
li.card .media img, li.card .media video { display: block; width: 100%; height: 100%; min-height: 0; object-fit: contain; }
li.card .media audio { width: 92%; }
li.card .media .none { color: #889; font-size: .85rem; }
li.card .body { padding: .6rem .7rem .7rem; display: flex; flex-direction: column; gap: .35rem; }
li.card .prompt { margin: 0; font-weight: 500; overflow-wrap: anywhere; }
dl.meta { display: grid; grid-template-columns: auto 1fr; gap: .1rem .6rem; margin: 0; font-size: .8rem; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.status-completed, .status-ready, .status-done, .status-delivered, .status-valid { color: var(--good); }
.status-failed, .status-error, .status-invalid { color: var(--bad); }
progress { width: 100%; }
.muted { color: var(--muted); }
.id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .78rem; color: var(--muted); overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; background: var(--card); font-size: .85rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
pre { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem; overflow: auto; max-height: 28rem; font-size: .8rem; }
details summary { cursor: pointer; color: var(--accent); }
svg.chart { max-width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 6px; color: var(--muted); }
.video-page { display: grid; grid-template-columns: minmax(260px, 420px) 1fr; gap: 1.5rem; align-items: start; }
.video-page video, .video-page img { width: 100%; border-radius: 6px; background: #000; }
.empty { padding: 2rem; text-align: center; color: var(--muted); border: 1px dashed var(--line); border-radius: 8px; }
`;

export const APP_JS = `"use strict";
(function () {
  var INTERVAL_MS = 1000;
  function running() { return Array.prototype.slice.call(document.querySelectorAll("[data-job]")); }
  function show(el, job) {
    var status = el.querySelector(".status");
    if (status) { status.textContent = job.status; status.className = "status status-" + job.status; }
    var step = el.querySelector(".step");
    if (step) step.textContent = job.step ? job.step : "";
    var bar = el.querySelector("progress");
    if (bar) {
      if (typeof job.progress === "number") bar.value = job.progress; else bar.removeAttribute("value");
      if (!job.running) bar.value = job.status === "failed" || job.status === "error" ? bar.value : 100;
    }
    el.setAttribute("data-progress", typeof job.progress === "number" ? String(job.progress) : "");
    el.setAttribute("data-status", job.status);
  }
  function poll() {
    var els = running();
    if (!els.length) return;
    var query = els.map(function (el) { return "key=" + encodeURIComponent(el.getAttribute("data-job")); }).join("&");
    fetch("/ui/api/jobs?" + query, { headers: { accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { jobs: [] }; })
      .then(function (body) {
        var finished = false;
        (body.jobs || []).forEach(function (job) {
          els.forEach(function (el) {
            if (el.getAttribute("data-job") !== job.key) return;
            show(el, job);
            if (!job.running) { el.removeAttribute("data-job"); finished = true; }
          });
        });
        // A finished job has a result to show: the server renders it.
        if (finished && !running().length) setTimeout(function () { location.reload(); }, INTERVAL_MS);
        else setTimeout(poll, INTERVAL_MS);
      })
      .catch(function () { setTimeout(poll, INTERVAL_MS * 3); });
  }
  document.addEventListener("DOMContentLoaded", function () { setTimeout(poll, INTERVAL_MS); });
})();
`;
