/**
 * Approximate advance widths of DejaVu Sans (the bundled font), in em, so prompts wrap to the space
 * they have without a font parser. Values are the font's advances rounded; unknown characters get
 * a generous default so lines err on the short side.
 */
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const LOWER_W = [
  0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592,
  0.592, 0.525,
];
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const UPPER_W = [
  0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685,
  0.611, 0.685,
];
const PUNCT: Record<string, number> = {
  " ": 0.318,
  ".": 0.318,
  ",": 0.318,
  ":": 0.337,
  ";": 0.337,
  "!": 0.401,
  "?": 0.531,
  "'": 0.275,
  '"': 0.46,
  "-": 0.361,
  "(": 0.39,
  ")": 0.39,
  "/": 0.337,
  "&": 0.78,
  "…": 1.0,
};

const table = new Map<string, number>();
for (const [i, c] of [...LOWER].entries()) table.set(c, LOWER_W[i]!);
for (const [i, c] of [...UPPER].entries()) table.set(c, UPPER_W[i]!);
for (const d of "0123456789") table.set(d, 0.636);
for (const [c, w] of Object.entries(PUNCT)) table.set(c, w);

/** True for characters drawn about one em wide (CJK, Hangul, fullwidth forms, emoji). */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    cp >= 0x1f000
  );
}

export function charEm(ch: string): number {
  const known = table.get(ch);
  if (known !== undefined) return known;
  const cp = ch.codePointAt(0) ?? 0;
  if (isWide(cp)) return 1.0;
  const lower = ch.toLowerCase();
  if (lower !== ch && table.has(lower)) return 0.72; // accented capitals
  return 0.66;
}

export function textEm(text: string): number {
  let w = 0;
  for (const ch of text) w += charEm(ch);
  return w;
}
