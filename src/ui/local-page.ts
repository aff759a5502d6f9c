/** `/local`: the local instance — spaces, keys, ledgers with a chart, jobs, webhook deliveries, videos. */
import type { VideoRow } from "../features/video/emulator/public/record.js";
import { creditsChart } from "./chart.js";
import { html, prettyJson, type Html } from "./html.js";
import { layout, tableOf, when } from "./layout.js";
import type { DeliveryLine, JobLine, LocalData } from "./local-data.js";

const status = (s: string) => html`<span class="status status-${s}">${s}</span>`;
const ms = (t: number | null) => (t === null ? "" : when(new Date(t).toISOString()));

function ledgers(data: LocalData): Html {
  return html`${data.ledgers.map(
    ({ space, entries }) => html`<h3>${space.name} <span class="id">${space.id}</span> — ${space.credits} credits</h3>
${creditsChart(
  entries.map((e) => ({ at: e.created_at, balance: e.balance_after })),
  `credits of ${space.name} over time`,
)}
<details><summary>ledger (${entries.length} entries)</summary>
${tableOf(
  entries,
  [
    ["created", (e) => when(e.created_at)],
    ["kind", (e) => e.kind],
    ["amount", (e) => e.amount],
    ["balance", (e) => e.balance_after],
    ["ref", (e) => html`<span class="id">${e.ref ?? ""}</span>`],
    ["note", (e) => e.note ?? ""],
  ],
  "No entries.",
)}</details>`,
  )}`;
}

function jobStep(j: JobLine): Html {
  const s = j.state;
  if (!s) return html``;
  return html`${s.step ?? ""}${s.progress !== null ? html` <progress max="100" value="${s.progress}"></progress> ${s.progress}%` : ""} ${status(s.status)}`;
}

function jobs(lines: readonly JobLine[]): Html {
  return tableOf(
    lines,
    [
      ["job", (j) => html`<span class="id">${j.row.id}</span>`],
      ["kind", (j) => j.row.kind],
      ["record", (j) => html`<span class="id">${j.row.ref ?? ""}</span>`],
      ["queue", (j) => status(j.row.status)],
      ["attempts", (j) => `${j.row.attempts}/${j.row.max_attempts}`],
      ["step", jobStep],
      ["last error", (j) => j.row.last_error ?? ""],
      ["created", (j) => ms(j.row.created_at)],
      ["updated", (j) => ms(j.row.updated_at)],
    ],
    "No jobs.",
  );
}

function delivery(line: DeliveryLine, token: string): Html {
  const d = line.delivery;
  return html`<tr data-delivery="${d.id}">
<td><span class="id">${d.id}</span>${d.webhook_id !== d.id ? html`<br><span class="muted">repeats ${d.webhook_id}</span>` : ""}</td><td>${d.task ?? ""}</td><td class="id">${d.url}</td><td>${status(d.status)}</td>
<td>${d.attempts}${d.last_status !== null ? html` (HTTP ${d.last_status})` : ""}${d.last_error ? html`<br><span class="status-failed">${d.last_error}</span>` : ""}</td>
<td>${status(line.signature === "unchecked" ? "unsigned" : line.signature)}</td>
<td>${when(d.created_at)}</td>
<td><form method="post" action="/ui/webhooks/${encodeURIComponent(d.id)}/resend"><input type="hidden" name="token" value="${token}"><button type="submit" title="the same delivery again, webhook-id ${d.webhook_id} (a repeat)">Resend</button></form>
<form method="post" action="/ui/webhooks/${encodeURIComponent(d.id)}/redeliver"><input type="hidden" name="token" value="${token}"><button type="submit" title="its payload as a new delivery, with a new webhook-id">Send as new</button></form></td>
</tr>
<tr><td colspan="8"><details><summary>payload and attempts</summary><pre>${prettyJson(d.payload)}</pre>
${tableOf(
  d.attempt_log,
  [
    ["attempt", (a) => a.attempt],
    ["HTTP", (a) => a.status_code ?? ""],
    ["error", (a) => a.error ?? ""],
    ["ms", (a) => a.duration_ms],
    ["at", (a) => when(a.at)],
  ],
  "No attempt yet.",
)}
</details></td></tr>`;
}

function deliveries(data: LocalData, token: string): Html {
  if (!data.deliveries.length) return html`<p class="muted">No webhook deliveries.</p>`;
  return html`<p class="muted">${data.signing ? "Deliveries are signed (Standard Webhooks); the signature column is the receiver's check of this payload signed with the current secret." : "No signing secret: deliveries go unsigned (mediagen local webhooks secret set)."}</p>
<table class="deliveries"><thead><tr><th>delivery</th><th>task</th><th>url</th><th>status</th><th>attempts</th><th>signature</th><th>created</th><th></th></tr></thead>
<tbody>${data.deliveries.map((l) => delivery(l, token))}</tbody></table>`;
}

/** The fault rules (local faults): what each does to which operation, and how often it has fired. */
function faults(data: LocalData): Html {
  return tableOf(
    data.faults,
    [
      ["rule", (f) => html`<span class="id">${f.id}</span>`],
      ["operation", (f) => f.op],
      ["action", (f) => f.action],
      ["parameters", (f) => JSON.stringify(f.params)],
      ["scope", (f) => [f.space_id, f.key_id].filter(Boolean).join(" ") || "all"],
      ["probability", (f) => f.probability],
      ["left", (f) => (f.remaining === null ? "no limit" : f.remaining)],
      ["hits", (f) => f.hits],
      ["state", (f) => status(f.state)],
      ["expires", (f) => when(f.expires_at)],
    ],
    "No fault rules (mediagen local faults add).",
  );
}

/** The request journal (local requests): what `serve` received, newest first, bodies on demand. */
function requests(data: LocalData): Html {
  return tableOf(
    data.requests,
    [
      ["at", (r) => when(r.at)],
      ["request", (r) => html`${r.method} <span class="id">${r.path}${r.query ? `?${r.query}` : ""}</span>`],
      ["operation", (r) => r.op ?? ""],
      ["status", (r) => (r.status !== null ? r.status : status(r.error ?? "none"))],
      ["ms", (r) => r.duration_ms],
      ["request id", (r) => html`<span class="id">${r.request_id ?? ""}</span>`],
      ["body", (r) => (r.body === null ? "" : html`<details><summary>body</summary><pre>${prettyJson(r.body)}</pre></details>`)],
    ],
    "No requests recorded (serve records every request to the API and media links).",
  );
}

/** The snapshots (local snapshot save), and the clock when it is not the machine's (local clock). */
function snapshotsAndClock(data: LocalData): Html {
  const c = data.clock;
  const moved = c.frozen_at !== null ? `frozen at ${when(c.now)}` : c.offset_ms !== 0 ? `${when(c.now)} (moved ${c.offset_ms / 1000} s from the machine's)` : "";
  return html`${tableOf(
    data.snapshots,
    [
      ["snapshot", (s) => s.name],
      ["saved", (s) => when(s.created_at)],
      ["spaces", (s) => s.spaces],
      ["media files", (s) => s.media_files],
      ["bytes", (s) => s.size_bytes],
    ],
    "No snapshots (mediagen local snapshot save <name>).",
  )}${moved ? html`<p>Instance clock: ${moved}.</p>` : html``}`;
}

export function localPage(data: LocalData, videos: readonly VideoRow[], token: string, notice?: string): Html {
  return layout(
    "Local instance",
    html`${notice ? html`<p class="notice">${notice}</p>` : ""}
<section id="spaces"><h2>Spaces</h2>${tableOf(
      data.spaces,
      [
        ["space", (s) => html`<span class="id">${s.id}</span>`],
        ["name", (s) => s.name],
        ["plan", (s) => s.plan],
        ["credits", (s) => s.credits],
        ["default", (s) => (s.is_default ? "yes" : "")],
        ["keys", (s) => s.keys],
        ["created", (s) => when(s.created_at)],
      ],
      "No spaces yet.",
    )}</section>
<section id="keys"><h2>API keys</h2>${tableOf(
      data.keys,
      [
        ["key id", (k) => html`<span class="id">${k.id}</span>`],
        ["space", (k) => html`<span class="id">${k.space_id}</span>`],
        ["key", (k) => k.key],
        ["created", (k) => when(k.created_at)],
        ["revoked", (k) => when(k.revoked_at)],
      ],
      "No keys.",
    )}</section>
<section id="ledgers"><h2>Balances and ledgers</h2>${ledgers(data)}</section>
<section id="jobs"><h2>Jobs</h2>${jobs(data.jobs)}</section>
<section id="webhooks"><h2>Webhook deliveries</h2>${deliveries(data, token)}</section>
<section id="videos"><h2>Videos</h2>${tableOf(
      videos,
      [
        ["video", (v) => html`<a href="/videos/${encodeURIComponent(v.id)}" class="id">${v.id}</a>`],
        ["status", (v) => status(v.status)],
        ["seconds", (v) => (v.duration_ms === null ? "" : v.duration_ms / 1000)],
        ["origin", (v) => (v.origin === "duplicate" ? `copy of ${v.parent_video_id}` : (v.generation_id ?? ""))],
        ["created", (v) => when(v.created_at)],
      ],
      "No videos.",
    )}</section>
<section id="faults"><h2>Faults</h2>${faults(data)}</section>
<section id="requests"><h2>Requests</h2>${requests(data)}</section>
<section id="snapshots"><h2>Snapshots and clock</h2>${snapshotsAndClock(data)}</section>`,
  );
}
