/**
 * A space's credits over time as inline SVG (no library, no script): the balance after each ledger
 * entry, as a step line, with the first and last dates and the lowest and highest balance labelled.
 */
import { html, type Html } from "./html.js";

export interface BalancePoint {
  at: string;
  balance: number;
}

const W = 640;
const H = 160;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

const fmt = (n: number) => String(Math.round(n * 1000) / 1000);

export function creditsChart(points: readonly BalancePoint[], label: string): Html {
  const pts = points.map((p) => ({ t: Date.parse(p.at), v: p.balance })).filter((p) => Number.isFinite(p.t));
  if (!pts.length) return html`<p class="muted">No ledger entries.</p>`;
  const t0 = pts[0]!.t;
  const t1 = Math.max(pts[pts.length - 1]!.t, t0 + 1);
  // The balance's own range (a few credits spent out of 1000 still show), padded, never below 0.
  const hi = Math.max(...pts.map((p) => p.v));
  const lo = Math.min(...pts.map((p) => p.v));
  const pad = Math.max((hi - lo) * 0.1, 0.5);
  const vMax = hi + pad;
  const vMin = Math.max(0, lo - pad);
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - vMin) / (vMax - vMin || 1)) * (H - PAD.top - PAD.bottom);
  // A step line: a balance holds until the next entry changes it.
  const coords: string[] = [];
  pts.forEach((p, i) => {
    if (i > 0) coords.push(`${x(p.t).toFixed(1)},${y(pts[i - 1]!.v).toFixed(1)}`);
    coords.push(`${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`);
  });
  if (pts.length === 1) coords.push(`${(W - PAD.right).toFixed(1)},${y(pts[0]!.v).toFixed(1)}`);
  const last = pts[pts.length - 1]!;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">
<title>${label}</title>
<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" stroke="#888" stroke-width="1"/>
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}" stroke="#888" stroke-width="1"/>
<text x="${PAD.left - 6}" y="${y(hi) + 4}" text-anchor="end" font-size="11" fill="currentColor">${fmt(hi)}</text>
${hi !== lo ? html`<text x="${PAD.left - 6}" y="${y(lo) + 4}" text-anchor="end" font-size="11" fill="currentColor">${fmt(lo)}</text>` : ""}
<text x="${PAD.left}" y="${H - 8}" font-size="11" fill="currentColor">${new Date(t0).toISOString().slice(0, 16).replace("T", " ")}</text>
<text x="${W - PAD.right}" y="${H - 8}" text-anchor="end" font-size="11" fill="currentColor">${new Date(last.t).toISOString().slice(0, 16).replace("T", " ")}</text>
<polyline class="balance" points="${coords.join(" ")}" fill="none" stroke="#2a7ae2" stroke-width="2"/>
${pts.map((p) => html`<circle cx="${x(p.t).toFixed(1)}" cy="${y(p.v).toFixed(1)}" r="3" fill="#2a7ae2"><title>${fmt(p.v)} credits at ${new Date(p.t).toISOString()}</title></circle>`)}
</svg>`;
}
