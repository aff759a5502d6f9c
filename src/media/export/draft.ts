/**
 * What a draft (`plan preview`, the wizard's draft) draws that a full export does not, so the draft
 * can be looked at rather than read:
 *
 * - A look of another shape than its box (a horizontal look in a vertical video, a vertical look in
 *   the half layout's box) is shown WHOLE: fitted into the box over a darkened, blurred cover of
 *   itself, with a thin frame around the part the export keeps (the export cover-crops it, as the
 *   service does). Cover-cropped, the words drawn on a local look's picture were cut at both edges
 *   ("lking into a poc"); fitted, every letter of the picture is inside the visible frame.
 * - A sequence's `action` (the plan's avatar direction: "smile", "point at the door") as a small
 *   label in the frame's top-right corner, shrunk and then shortened to fit the frame's width.
 *
 * Pure layout; graph.ts and video-graph.ts turn it into filters.
 */
import { cleanText, fitLine, type Rect } from "../layout.js";
import { textEm } from "../textwidth.js";

/** A cover crop that cuts less than this share of a side is as good as a fit: the export's cover is kept. */
const CROP_TOLERANCE = 0.02;
/** Line height of DejaVu Sans (ascent + descent), in em. */
const TEXT_HEIGHT_EM = 1.17;
const MAX_LABEL_CHARS = 200;

const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));
const evenDown = (n: number): number => Math.max(0, 2 * Math.floor(n / 2));

export type LookPlacement =
  | { mode: "cover" }
  | {
      mode: "fit";
      /** Where the whole picture is drawn, inside the box (0,0)–(bw,bh). */
      box: Rect;
      /** The part of the picture the export's cover crop keeps, in the box's coordinates. */
      keep: Rect;
    };

/**
 * Where a picture of iw×ih goes in a draft's box of bw×bh: covered (as the export does) when the
 * cover crop cuts (almost) nothing, else fitted whole, with the rectangle the export keeps.
 */
export function lookPlacement(iw: number | undefined, ih: number | undefined, bw: number, bh: number): LookPlacement {
  if (!iw || !ih || iw <= 0 || ih <= 0) return { mode: "cover" };
  const s = Math.max(bw / iw, bh / ih);
  const cutW = 1 - bw / (iw * s);
  const cutH = 1 - bh / (ih * s);
  if (cutW <= CROP_TOLERANCE && cutH <= CROP_TOLERANCE) return { mode: "cover" };
  const f = Math.min(bw / iw, bh / ih);
  const fitted = (n: number, limit: number): number => (even(n) > limit ? Math.max(2, even(n) - 2) : even(n));
  const w = fitted(iw * f, bw);
  const h = fitted(ih * f, bh);
  const box = { x: evenDown((bw - w) / 2), y: evenDown((bh - h) / 2), w, h };
  // The export scales the picture to cover the box and keeps its centre, of the box's aspect ratio.
  const wider = iw / ih > bw / bh;
  const kw = wider ? Math.min(w, Math.round((h * bw) / bh)) : w;
  const kh = wider ? h : Math.min(h, Math.round((w * bh) / bw));
  const keep = { x: box.x + Math.round((w - kw) / 2), y: box.y + Math.round((h - kh) / 2), w: kw, h: kh };
  return { mode: "fit", box, keep };
}

export interface DraftLabel {
  text: string;
  fontSize: number;
  /** Where drawtext puts the text's top-left corner. */
  x: number;
  y: number;
  /** The box's border around the text. */
  pad: number;
  /** The label's box (text and pad), inside the frame. */
  rect: Rect;
}

/**
 * A sequence's action as a one-line label at the frame's top-right corner: at most 3.5 % of the
 * frame's short side, shrunk to 2.5 % before it is shortened (with an ellipsis) to the frame's width.
 * Null when there is nothing to show.
 */
export function actionLabel(action: string, W: number, H: number): DraftLabel | null {
  const clean = cleanText(action).slice(0, MAX_LABEL_CHARS);
  if (!clean) return null;
  const m = Math.min(W, H);
  const margin = Math.max(2, Math.round(m * 0.03));
  const maxSize = Math.max(8, Math.round(m * 0.035));
  const minSize = Math.max(8, Math.round(m * 0.025));
  let size = maxSize;
  const padOf = (s: number): number => Math.max(2, Math.round(s * 0.35));
  const room = (s: number): number => (W - 2 * margin - 2 * padOf(s)) / s;
  while (size > minSize && textEm(clean) > room(size)) size--;
  const pad = padOf(size);
  if (room(size) < 1 || 2 * margin + 2 * pad + size > H) return null;
  const text = fitLine(clean, room(size));
  const w = Math.min(W - 2 * margin, Math.ceil(textEm(text) * size) + 2 * pad);
  // Top right: a local look's own label is at the top left of its picture.
  const rect = { x: W - margin - w, y: margin, w, h: Math.ceil(size * TEXT_HEIGHT_EM) + 2 * pad };
  return { text, fontSize: size, x: rect.x + pad, y: margin + pad, pad, rect };
}
