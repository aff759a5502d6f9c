/** `/videos/<id>`: a video's player (its latest export) beside its timeline, as `local videos show` prints it. */
import { videoLines, sec, type VideoView } from "../features/video/emulator/show.js";
import { html, type Html } from "./html.js";
import { layout, tableOf, when } from "./layout.js";

export interface VideoPageData {
  view: VideoView;
  /** Signed URLs of the latest finished export and the video's thumbnail. */
  playUrl: string | null;
  posterUrl: string | null;
  exportId: string | null;
}

function player(d: VideoPageData): Html {
  if (d.playUrl) {
    return html`<video src="${d.playUrl}"${d.posterUrl ? html` poster="${d.posterUrl}"` : ""} controls playsinline preload="metadata"></video>
<p class="muted">export <span class="id">${d.exportId}</span></p>`;
  }
  return html`${d.posterUrl ? html`<img src="${d.posterUrl}" alt="thumbnail of ${d.view.video_id}">` : ""}
<p class="muted">Not exported yet: <code>mediagen export start ${d.view.video_id} --wait</code> renders the MP4.</p>`;
}

function subtitles(v: VideoView): Html {
  const rows = (v.timeline?.blocks ?? []).flatMap((b, i) =>
    b.sequences.flatMap((s, j) => s.sentences.map((x) => ({ block: i + 1, sequence: j + 1, ...x, look: s.look_id, media: s.media }))),
  );
  return tableOf(
    rows,
    [
      ["block", (r) => r.block],
      ["sequence", (r) => r.sequence],
      ["from", (r) => sec(r.start_ms)],
      ["to", (r) => sec(r.end_ms)],
      ["subtitle", (r) => r.text],
      ["look", (r) => html`<span class="id">${r.look ?? ""}</span>`],
      ["media", (r) => (r.media ? `${r.media.show} ${r.media.kind}` : "")],
    ],
    "No sentences (the video is not done, or its speech was supplied without words).",
  );
}

export function videoPage(d: VideoPageData): Html {
  const v = d.view;
  return layout(
    `Video ${v.video_id}`,
    html`<h2>Video <span class="id">${v.video_id}</span> — <span class="status status-${v.status}">${v.status}</span></h2>
<p class="muted">created ${when(v.created_at)}</p>
<div class="video-page">
<div class="player">${player(d)}</div>
<div class="timeline"><h3>Timeline</h3><pre class="timeline-text">${videoLines(v).join("\n")}</pre>
<h3>Subtitles</h3>${subtitles(v)}</div>
</div>`,
  );
}
