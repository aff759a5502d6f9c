/** Issue 27: the pages' one escape, used by the `html` template for every value (src/ui/html.ts). */
import { describe, expect, it } from "vitest";
import { escapeHtml, html, Html } from "../../src/ui/html.js";
import { creditsChart } from "../../src/ui/chart.js";
import { matches, type GalleryItem } from "../../src/ui/gallery-data.js";

describe("html", () => {
  it("escapes every interpolated value, in text and attributes", () => {
    const evil = `<script>alert("x")</script>' onmouseover='1' \`&`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).toBe(`<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`);
    expect(out).not.toMatch(/<script|"x"|'1'/);
    expect(escapeHtml(`<>&"'\``)).toBe("&lt;&gt;&amp;&quot;&#39;&#96;");
  });

  it("keeps what html made, joins arrays, drops null/undefined/false, escapes numbers and objects as text", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<div>${inner}${[html`<a>`, "<b>"]}${null}${undefined}${false}${0}</div>`.text).toBe("<div><b>&lt;i&gt;</b><a>&lt;b&gt;0</div>");
    expect(html`${{ toString: () => "<x>" }}`.text).toBe("&lt;x&gt;");
  });

  it("Html cannot be made from a string outside the template", () => {
    expect(() => new (Html as unknown as new (t: string, b: symbol) => Html)("<script>", Symbol("html"))).toThrow(TypeError);
  });
});

describe("credits chart", () => {
  it("draws the balance after each entry as a step line, labelled with the extremes", () => {
    const svg = creditsChart(
      [
        { at: "2026-01-01T00:00:00Z", balance: 1000 },
        { at: "2026-01-02T00:00:00Z", balance: 990 },
        { at: "2026-01-03T00:00:00Z", balance: 995 },
      ],
      "credits <of> default",
    ).text;
    expect(svg).toMatch(/^<svg class="chart"/);
    expect((svg.match(/<circle /g) ?? []).length).toBe(3);
    expect(svg).toContain(">1000<");
    expect(svg).toContain(">990<");
    expect(svg).toContain("credits &lt;of&gt; default");
    const points = /points="([^"]+)"/.exec(svg)![1]!.split(" ");
    expect(points).toHaveLength(5); // 3 entries, 2 steps
  });

  it("says so when there is no entry", () => {
    expect(creditsChart([], "x").text).toContain("No ledger entries");
  });
});

describe("gallery filters", () => {
  const item = (over: Partial<GalleryItem>): GalleryItem => ({
    key: "local:asset:1",
    kind: "asset",
    id: "1",
    target: "local",
    media: "image",
    model: "imgA-4-fast",
    cost: 0.1,
    status: "completed",
    running: false,
    live: true,
    step: null,
    progress: null,
    prompt: "A Red Fox",
    created_at: "",
    error: null,
    src: null,
    poster: null,
    video_id: null,
    space: null,
    exports: [],
    ...over,
  });
  it("match kind (media or job kind), target, status and text (prompt, id, model; any case)", () => {
    expect(matches(item({}), { kind: "image" })).toBe(true);
    expect(matches(item({}), { kind: "asset" })).toBe(true);
    expect(matches(item({}), { kind: "video" })).toBe(false);
    expect(matches(item({}), { target: "hosted" })).toBe(false);
    expect(matches(item({}), { status: "failed" })).toBe(false);
    expect(matches(item({}), { text: "red fox" })).toBe(true);
    expect(matches(item({}), { text: "IMGA" })).toBe(true);
    expect(matches(item({}), { text: "wolf" })).toBe(false);
  });
});
