/** Types of scripts/engine-methods.mjs for the test that checks its output. */
export const TARGET: string;
export function render(features: readonly { name: string; routes: Readonly<Record<string, { method: string; path: string; summary: string }>> }[]): string;
