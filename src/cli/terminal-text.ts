/**
 * Text from the service, the local store or a webhook is shown on a terminal as text, never run as
 * one of its commands: a control character in it (ESC starting an OSC 52 clipboard write, a title
 * change, a screen clear or an OSC 8 link; BEL, backspace, a carriage return that overwrites the
 * line; the 8-bit C1 controls) is printed visibly escaped (`\x1b`, `\u009b`). `--json` keeps its
 * meaning: JSON escapes C0 controls itself, and DEL and C1 become the JSON escapes `\u007f`, `\u009b`.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters this module escapes.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colour sequences the CLI writes itself (SGR), and any other control character.
const CONTROL_BUT_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function visible(c: string): string {
  const n = c.charCodeAt(0);
  // DEL and C1 as \u escapes: valid inside a JSON string too (JSON.stringify leaves them raw).
  return n < 0x20 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
}

/** `s` with every control character but newline and tab shown escaped (`\x1b`). */
export function escapeControls(s: string): string {
  return s.replace(CONTROL, visible);
}

/**
 * A line about to be printed: control characters escaped as in escapeControls, except the colour
 * sequences (SGR, `ESC [ … m`) that the CLI's own styles add. Values quoted from outside are escaped
 * whole where they are formatted (output.ts `cell`), so their own colour sequences show too.
 */
export function terminalLine(s: string): string {
  return s.replace(CONTROL_BUT_SGR, (m) => (m.length > 1 ? m : visible(m)));
}
