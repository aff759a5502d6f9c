/**
 * `/`: the gallery of what this machine made and of the local instance's own jobs (every space),
 * one card per video, with filters (GET, so a filtered view is a link).
 */
import { html, type Html } from "./html.js";
import { layout, when } from "./layout.js";
import { matches, type GalleryFilter, type GalleryItem } from "./gallery-data.js";

const KINDS = ["image", "video", "audio", "asset", "look", "generation", "export"];

function option(value: string, label: string, selected: string | undefined): Html {
  return html`<option value="${value}"${value === (selected ?? "") ? html` selected` : ""}>${label}</option>`;
}

function filters(items: readonly GalleryItem[], f: GalleryFilter): Html {
  const targets = [...new Set(["local", "hosted", ...items.map((i) => i.target)])];
  const statuses = [...new Set(items.map((i) => i.status))].sort();
  const spaces = [...new Set(items.flatMap((i) => (i.space ? [i.space] : [])))].sort();
  return html`<form class="filters" method="get" action="/">
<label>kind<select name="kind">${option("", "any", f.kind)}${KINDS.map((k) => option(k, k, f.kind))}</select></label>
<label>target<select name="target">${option("", "any", f.target)}${targets.map((t) => option(t, t, f.target))}</select></label>
<label>status<select name="status">${option("", "any", f.status)}${statuses.map((s) => option(s, s, f.status))}</select></label>
${spaces.length ? html`<label>space<select name="space">${option("", "any", f.space)}${spaces.map((x) => option(x, x, f.space))}</select></label>` : ""}
<label>text<input type="search" name="q" value="${f.text ?? ""}" placeholder="prompt, id, model"></label>
<button type="submit">Filter</button>
</form>`;
}

export function mediaElement(item: Pick<GalleryItem, "media" | "src" | "poster" | "prompt" | "kind" | "status" | "running">): Html {
  if (!item.src && item.running) return html`<span class="none">${item.status}…</span>`;
  if (!item.src && (item.status === "failed" || item.status === "error")) return html`<span class="none">failed: no result</span>`;
  if (!item.src && item.poster) return html`<img src="${item.poster}" alt="${item.prompt ?? item.kind}" loading="lazy">`;
  if (!item.src) return html`<span class="none">${item.media === "other" ? item.kind : item.media}: no file here</span>`;
  switch (item.media) {
    case "image":
      return html`<a href="${item.src}"><img src="${item.src}" alt="${item.prompt ?? "image"}" loading="lazy"></a>`;
    case "video":
      return html`<video src="${item.src}"${item.poster ? html` poster="${item.poster}"` : ""} controls muted loop playsinline preload="metadata"></video>`;
    case "audio":
      return html`<audio src="${item.src}" controls preload="none"></audio>`;
    default:
      return html`<a href="${item.src}">open the file</a>`;
  }
}

function card(item: GalleryItem): Html {
  return html`<li class="card" data-key="${item.key}"${item.running && item.live ? html` data-job="${item.key}"` : ""} data-status="${item.status}" data-progress="${item.progress ?? ""}">
<div class="media">${mediaElement(item)}</div>
<div class="body">
<p class="prompt">${item.prompt ?? html`<span class="muted">(no prompt recorded)</span>`}</p>
${item.running ? html`<progress max="100"${item.progress !== null ? html` value="${item.progress}"` : ""}></progress>` : ""}
<dl class="meta">
<dt>status</dt><dd><span class="status status-${item.status}">${item.status}</span> <span class="step muted">${item.running ? (item.step ?? "") : ""}</span></dd>
<dt>model</dt><dd>${item.model ?? "—"}</dd>
<dt>credits</dt><dd>${item.cost ?? "—"}</dd>
<dt>target</dt><dd>${item.target} · ${item.kind}</dd>
<dt>created</dt><dd>${when(item.created_at)}</dd>
${item.error ? html`<dt>error</dt><dd class="status-failed">${item.error}</dd>` : ""}
${item.exports.length ? html`<dt>exports</dt><dd class="exports">${item.exports.map((x, n) => html`${n ? ", " : ""}${x.src ? html`<a href="${x.src}">${x.id}</a>` : x.id} <span class="muted">${x.status}</span>`)}</dd>` : ""}
${item.space ? html`<dt>space</dt><dd>${item.space}</dd>` : ""}
${item.video_id ? html`<dt>video</dt><dd><a href="/videos/${encodeURIComponent(item.video_id)}">timeline</a></dd>` : ""}
</dl>
<span class="id">${item.id}</span>
</div>
</li>`;
}

/** A page shows the most recent matches; filters reach older ones. */
export const GALLERY_MAX = 200;

export function galleryPage(items: readonly GalleryItem[], f: GalleryFilter): Html {
  const matching = items.filter((i) => matches(i, f));
  const shown = matching.slice(0, GALLERY_MAX);
  const body = !items.length
    ? html`<p class="empty">Nothing made on this machine or this instance yet. Start something, e.g. <code>mediagen asset start --type image --model imgA-4-fast --prompt "a red fox"</code>.</p>`
    : !shown.length
      ? html`<p class="empty">No job matches these filters.</p>`
      : html`<ul class="gallery">${shown.map(card)}</ul>`;
  return layout(
    "Gallery",
    html`${filters(items, f)}<p class="muted">${matching.length} of ${items.length} item(s): this machine's history and the local instance's own jobs (every space)${matching.length > shown.length ? `; the ${shown.length} most recent shown (filter to see older ones)` : ""}.</p>${body}`,
  );
}
