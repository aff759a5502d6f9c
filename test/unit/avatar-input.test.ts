import { describe, expect, it } from "vitest";
import { AVATAR_LIMITS, isImageRef, lookFromPrompt, lookSize, parseCreate, parseEdit, personFromPrompt, titleFrom } from "../../src/features/avatar/input.js";
import { apiErrorOf } from "../helpers/errors.js";

describe("avatar create validation", () => {
  const rejects: [string, Record<string, unknown>, string][] = [
    ["webhook not a URL", { prompt: "x", webhook_url: "not a url" }, "webhook_url"],
    ["webhook ftp", { prompt: "x", webhook_url: "ftp://h/x" }, "webhook_url"],
    ["webhook not a string", { prompt: "x", webhook_url: 5 }, "webhook_url"],
    ["unknown style", { prompt: "x", style: "raw" }, "style"],
    ["unknown format", { prompt: "x", format: "square" }, "format"],
    ["unknown resolution", { prompt: "x", resolution: "8K" }, "resolution"],
    ["element not an image", { prompt: "x", elementImages: ["https://h/a.mp4"] }, "elementImages[0]"],
    ["elements alias not an image", { prompt: "x", elements: ["https://h/a.png", "https://h/b.gif"] }, "elements[1]"],
    ["images not an array", { images: "https://h/a.png" }, "images"],
    ["image with a video extension", { images: ["https://h/a.png", "https://h/b.mov"] }, "images[1]"],
    ["image with no extension", { images: ["https://h/a"] }, "images[0]"],
    ["prompt not a string", { prompt: 42 }, "prompt"],
  ];
  it.each(rejects)("%s → 400 INVALID_VALUE {error, code}", (_name, body, mentions) => {
    const e = apiErrorOf(() => parseCreate(body));
    expect(e.status).toBe(400);
    expect(e.body).toEqual({ error: expect.stringContaining(mentions), code: "INVALID_VALUE" });
  });

  it.each([
    ["no prompt, no images", {}],
    ["blank prompt", { prompt: "   " }],
    ["empty images", { images: [] }],
  ])("%s → 400 validation body with field prompt", (_n, body) => {
    const e = apiErrorOf(() => parseCreate(body));
    expect(e.status).toBe(400);
    expect(e.body).toEqual({
      error: expect.any(String),
      details: [{ code: "INVALID_VALUE", message: expect.any(String), field: "prompt" }],
    });
    expect(e.code).toBe("INVALID_VALUE");
    expect(e.field).toBe("prompt");
  });

  it("prompt wins over images, which are then not even checked", () => {
    const plan = parseCreate({ prompt: "a chef", images: ["not-an-image.txt"] });
    expect(plan.kind).toBe("prompt");
  });

  it("defaults: iphone, vertical, 2K, no elements", () => {
    expect(parseCreate({ prompt: "a chef" })).toMatchObject({
      kind: "prompt",
      style: "iphone",
      format: "vertical",
      resolution: "2K",
      elements: [],
    });
  });

  it("elementImages wins over its alias elements", () => {
    const plan = parseCreate({ prompt: "p", elementImages: ["https://h/logo.png"], elements: ["https://h/other.png"] });
    expect(plan.kind === "prompt" && plan.elements).toEqual(["https://h/logo.png"]);
    const alias = parseCreate({ prompt: "p", elements: ["https://h/other.webp"] });
    expect(alias.kind === "prompt" && alias.elements).toEqual(["https://h/other.webp"]);
  });

  it("image-based: extensions case-insensitive, query ignored, file URLs and paths allowed", () => {
    const plan = parseCreate({ images: ["https://h/A.JPG?x=1", "file:///tmp/b.webp", "/tmp/c.jpeg", "rel/d.png"] });
    expect(plan.kind).toBe("images");
  });
});

describe("avatar edit validation, in the spec's order", () => {
  const ok = { avatar_id: "av_1", look_id: "lk_1", prompt: "in a park" };
  const rejects: [Record<string, unknown>, string, number][] = [
    [{}, "MISSING_AVATAR_ID", 400],
    [{ look_id: "l", prompt: "p" }, "MISSING_AVATAR_ID", 400],
    [{ avatar_id: "", look_id: "l", prompt: "p" }, "MISSING_AVATAR_ID", 400],
    [{ avatar_id: "a" }, "MISSING_LOOK_ID", 400],
    [{ avatar_id: "a", look_id: "l" }, "MISSING_PROMPT", 400],
    [{ avatar_id: "a", look_id: "l", prompt: " " }, "MISSING_PROMPT", 400],
    [{ ...ok, webhook_url: "nope" }, "INVALID_WEBHOOK_URL", 400],
    [{ ...ok, style: "iphone-pro" }, "INVALID_VALUE", 400],
    [{ ...ok, format: "square" }, "INVALID_VALUE", 400],
    [{ ...ok, resolution: "1K" }, "INVALID_VALUE", 400],
    [{ ...ok, imageUrls: ["https://h/x.gif"] }, "INVALID_VALUE", 400],
  ];
  it.each(rejects)("%j → %s", (body, code, status) => {
    const e = apiErrorOf(() => parseEdit(body));
    expect(e.status).toBe(status);
    expect(e.body).toEqual({ error: expect.any(String), code });
  });

  it("accepts raw style and defaults to vertical 2K", () => {
    expect(parseEdit({ ...ok, style: "raw" })).toMatchObject({ style: "raw", format: "vertical", resolution: "2K", imageUrls: [] });
  });
});

describe("look sizes", () => {
  it.each([
    ["vertical", "2K", 1152, 2048],
    ["horizontal", "2K", 2048, 1152],
    ["vertical", "4K", 2160, 3840],
    ["horizontal", "4K", 3840, 2160],
  ] as const)("%s %s → %ix%i", (format, res, w, h) => {
    expect(lookSize(format, res)).toEqual({ width: w, height: h });
  });
});

describe("what a prompt describes", () => {
  it.each([
    ["a smiling woman in a kitchen", "female"],
    ["a man driving", "male"],
    ["woman", "female"],
    ["businessman at his desk", "male"],
  ])("%s → %s", (prompt, gender) => {
    expect(personFromPrompt(prompt).gender).toBe(gender);
  });

  it("a prompt without clues always gets the same gender", () => {
    const a = personFromPrompt("friendly barista, warm light").gender;
    for (let i = 0; i < 3; i++) expect(personFromPrompt("friendly barista, warm light").gender).toBe(a);
  });

  it("reads age and hair, leaves ethnicity unspecified", () => {
    expect(personFromPrompt("elderly man with gray hair")).toMatchObject({ age_range: "senior", hair_color: "gray", ethnicity: "unspecified" });
    expect(personFromPrompt("a teenager")).toMatchObject({ age_range: "adolescent" });
    expect(personFromPrompt("someone")).toMatchObject({ age_range: "adult", hair_color: "unspecified" });
  });

  it.each([
    ["friendly barista, warm light", undefined, undefined, { place: "cafe", emotion: "happy", action: "talking", selfie: false }],
    ["chef cooking with an apron and glasses", undefined, undefined, { place: "kitchen", action: "cooking", accessories: ["glasses", "apron"] }],
    ["wearing sunglasses", undefined, undefined, { accessories: ["sunglasses"] }],
    ["a host", "podcast", undefined, { place: "podcast" }],
    ["a host", "podcast", "rooftop bar", { place: "rooftop bar" }],
    ["a host", "selfie", undefined, { selfie: true, place: "studio" }],
  ] as const)("%s (style %s, place %s)", (prompt, style, place, expected) => {
    expect(lookFromPrompt(prompt, style, place)).toMatchObject(expected);
  });

  it.each([
    ["friendly barista, warm light", "Friendly barista"],
    ["chef", "Chef"],
    ["a very long description that keeps going well past the limit of forty characters", "A very long description that keeps going"],
  ])("title of %s", (prompt, title) => {
    expect(titleFrom(prompt)).toBe(title);
  });
});

describe("image references", () => {
  it.each([
    ["https://h/a.png", true],
    ["https://h/a.PNG", true],
    ["https://h/a.webp#frag", true],
    ["http://h/a.jpeg?v=2", true],
    ["file:///x/y.jpg", true],
    ["./local.png", true],
    ["https://h/a.mp4", false],
    ["ftp://h/a.png", false],
    ["", false],
    ["https://h/", false],
  ])("%s → %s", (ref, ok) => {
    expect(isImageRef(ref)).toBe(ok);
  });
});

describe("avatar caps per plan", () => {
  it("are documented numbers that grow with the plan", () => {
    expect(AVATAR_LIMITS).toEqual({ free: 1, start: 3, PRO: 25, ENTREPRISE: 100 });
  });
});

describe("local files over HTTP (allowLocalFiles false)", () => {
  const http = { allowLocalFiles: false };
  const LOCAL = ["/tmp/a.png", "rel/b.jpg", "file:///tmp/c.webp", "file://relative.png", "C:\\pics\\d.png"];
  const cases: [string, (ref: string) => () => unknown][] = [
    ["images[1]", (ref) => () => parseCreate({ images: ["https://h/ok.png", ref] }, http)],
    ["elementImages[0]", (ref) => () => parseCreate({ prompt: "p", elementImages: [ref] }, http)],
    ["elements[0]", (ref) => () => parseCreate({ prompt: "p", elements: [ref] }, http)],
    ["imageUrls[0]", (ref) => () => parseEdit({ avatar_id: "av_1", look_id: "lk_1", prompt: "p", imageUrls: [ref] }, http)],
  ];

  it.each(cases)("%s: a local path or file:// URL → 400 INVALID_VALUE, before the image checks", (field, call) => {
    for (const ref of [...LOCAL, "/tmp/not-even-an-image.txt"]) {
      const e = apiErrorOf(call(ref));
      expect(e.status).toBe(400);
      expect(e.body).toEqual({ error: `${field}: local files are not accepted over HTTP; use an http(s) URL`, code: "INVALID_VALUE" });
    }
  });

  it("http(s) image URLs are accepted; in process the local ones are too", () => {
    expect(parseCreate({ images: ["https://h/a.png", "http://h/b.jpg"] }, http)).toMatchObject({ images: ["https://h/a.png", "http://h/b.jpg"] });
    const wellFormed = LOCAL.filter((r) => r !== "file://relative.png");
    expect(parseCreate({ images: wellFormed })).toMatchObject({ kind: "images", images: wellFormed });
    expect(parseEdit({ avatar_id: "a", look_id: "l", prompt: "p", imageUrls: wellFormed }, { allowLocalFiles: true }).imageUrls).toEqual(wellFormed);
  });
});
