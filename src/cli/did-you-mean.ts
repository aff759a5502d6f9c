/**
 * "Did you mean …?" for a word the CLI does not know: a subcommand (`export stat` → status), a model
 * (`--model imgA-5` → imgA-4). A start of a name means that name, whatever is nearer by spelling;
 * otherwise the nearest name one or two edits away (no more than a third of its letters).
 */

/** Edits (insert, delete, change) from `a` to `b`. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

/** The name of `names` that `typed` most likely meant, or undefined. Case is ignored. */
export function meantName(typed: string, names: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  if (t.length < 3 || names.some((n) => n.toLowerCase() === t)) return undefined;
  const starts = names.find((n) => n.toLowerCase().startsWith(t));
  if (starts) return starts;
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = distance(t, n.toLowerCase());
    if (d <= Math.min(2, Math.max(1, Math.floor(n.length / 3))) && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}
