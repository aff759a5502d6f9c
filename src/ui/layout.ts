/** The frame every page shares: head (stylesheet and script from this server only), title, navigation. */
import { html, type Html } from "./html.js";

export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · mediagen</title>
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header><h1>mediagen</h1><nav><a href="/">Gallery</a><a href="/local">Local instance</a></nav></header>
<main>
${body}
</main>
</body>
</html>
`;
}

/** "2026-03-01 14:05:09 UTC" from an ISO time; the text as given when it is not one. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A table of records: one column per [header, cell] pair; an empty list says so. */
export function tableOf<T>(rows: readonly T[], columns: readonly [string, (row: T) => unknown][], empty: string, cls = ""): Html {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<table class="${cls}"><thead><tr>${columns.map(([h]) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${columns.map(([, get]) => html`<td>${get(r)}</td>`)}</tr>`)}</tbody></table>`;
}
