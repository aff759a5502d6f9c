/**
 * The one way the pages make HTML: the `html` tagged template escapes every value it is given, so
 * nothing shown can be forgotten. Only what `html` itself built (an `Html`) goes in unescaped; a
 * string, a number, a record's field or a prompt is always text. There is no other way to mark
 * text as HTML.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

/** HTML that `html` made (so its parts are already escaped). The constructor is not exported. */
export class Html {
  private constructor(
    readonly text: string,
    brand: symbol,
  ) {
    if (brand !== BRAND) throw new TypeError("Html is made by the html template only");
  }
  toString(): string {
    return this.text;
  }
}
const BRAND = Symbol("html");
const newHtml = (text: string): Html => new (Html as unknown as new (t: string, b: symbol) => Html)(text, BRAND);

/** A value in a template: Html as is; arrays joined; null, undefined and false as nothing; the rest escaped. */
function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return newHtml(out);
}

/** A JSON value for a `data-` attribute or a `<pre>`: text like any other (escaped by `html`). */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}
