import { describe, expect, it } from "vitest";
import { AVATAR_LIMITS, createPlan, editPlan, lookFromPrompt, lookSize, personFromPrompt, titleFrom } from "../../src/features/avatar/emulator/input.js";
import { refuseRequest } from "../../src/features/request-check.js";
import { apiErrorOf } from "../helpers/errors.js";

/** The service's answer to the first problem of a request, as every door gives it (the contract). */
const refused = (op: "avatarCreate" | "avatarEdit", body: Record<string, unknown>) => refuseRequest(op, body);

describe("avatar create validation (the contract, one parse at the door)", () => {
  const rejects: [string, Record<string, unknown>, string][] = [
    ["webhook not a URL", { prompt: "x", webhook_url: "not a url" }, "webhook_url"],
    ["webhook ftp", { prompt: "x", webhook_url: "ftp://h/x" }, "webhook_url"],
    ["webhook not a string", { prompt: "x", webhook_url: 5 }, "webhook_url"],
    ["unknown style", { prompt: "x", style: "vintage" }, "style"],
    ["unknown format", { prompt: "x", format: "square" }, "format"],
    ["unknown resolution", { prompt: "x", resolution: "8K" }, "resolution"],
    ["element not a URL", { prompt: "x", elementImages: ["ftp://h/a.png"] }, "elementImages[0]"],
    ["elements alias item not a string", { prompt: "x", elements: ["https://h/a.png", 7] }, "elements[1]"],
    ["images not an array", { images: "https://h/a.png" }, "images"],
    ["an empty image", { images: ["https://h/a.png", " "] }, "images[1]"],
    ["imageUrls item not a URL", { imageUrls: ["mailto:me@h"] }, "imageUrls[0]"],
    ["prompt not a string", { prompt: 42 }, "prompt"],
    ["prompt too long", { prompt: "x".repeat(10_001) }, "prompt"],
  ];
  it.each(rejects)("%s → 400 INVALID_VALUE {error, code}", async (_name, body, mentions) => {
    const r = await refused("avatarCreate", body);
    expect(r?.status).toBe(400);
    expect(r?.body).toEqual({ error: expect.stringContaining(mentions), code: "INVALID_VALUE" });
  });

  it("webhook first, then the prompt, style, name and place, then the images (the service's order)", async () => {
    const all = { webhook_url: "nope", prompt: 1, style: "vintage", name: 2, place: 3, images: [4] };
    const order: string[] = [];
    let body: Record<string, unknown> = { ...all };
    for (const field of ["webhook_url", "prompt", "style", "name", "place", "images"]) {
      const r = await refused("avatarCreate", body);
      const error = (r?.body as { error?: string } | undefined)?.error ?? "";
      order.push(error.split(/[ [:]/)[0]!);
      body = Object.fromEntries(Object.entries(body).filter(([k]) => k !== field));
      if (field === "prompt") body.prompt = "x";
    }
    expect(order).toEqual(["webhook_url", "prompt", "style", "name", "place", "images"]);
  });

  it.each([
    ["no prompt, no images", {}],
    ["blank prompt", { prompt: "   " }],
    ["empty images", { images: [] }],
    ["empty imageUrls", { imageUrls: [] }],
  ])("%s → 400 validation body with field prompt", async (_n, body) => {
    const r = await refused("avatarCreate", body);
    expect(r).toEqual({
      status: 400,
      body: { error: "Validation failed", details: [{ code: "INVALID_VALUE", message: "prompt is required when no images are given", field: "prompt" }] },
    });
  });

  it.each([
    ["format", { images: ["https://h/a.png"], format: "horizontal" }],
    ["elementImages", { images: ["https://h/a.png"], elementImages: ["https://h/logo.png"] }],
  ])("%s without a prompt → the envelope naming it", async (field, body) => {
    const r = await refused("avatarCreate", body);
    expect(r?.body).toMatchObject({ code: "INVALID_VALUE", details: [{ code: "INVALID_VALUE", field }] });
  });

  it("accepts the docs' names: style raw, resolution 4K, imageUrls, and image URLs of any shape", async () => {
    for (const body of [
      { prompt: "a potter in her studio", style: "raw", resolution: "4K" },
      { imageUrls: ["https://example.com/portrait.jpg"], name: "From images" },
      { images: ["https://images.example.com/photo/12345?w=1080"] },
      { prompt: "chef", elementImages: ["https://cdn.example.com/brand/logo.svg"] },
    ]) {
      expect(await refused("avatarCreate", body), JSON.stringify(body)).toBeUndefined();
    }
  });

  it("refuses a name the docs do not give as unknown", async () => {
    const r = await refused("avatarCreate", { prompt: "x", image_urls: ["https://h/a.png"] });
    expect(r?.body).toMatchObject({ details: [{ field: "image_urls", message: expect.stringContaining("is not a field of this request") }] });
  });
});

describe("what a create asks for (createPlan, on a request the contract accepted)", () => {
  it("prompt wins over images", () => {
    expect(createPlan({ prompt: "a chef", images: ["https://h/a.png"] }).kind).toBe("prompt");
  });

  it("defaults: iphone, vertical, 2K, no elements", () => {
    expect(createPlan({ prompt: "a chef" })).toMatchObject({ kind: "prompt", style: "iphone", format: "vertical", resolution: "2K", elements: [] });
  });

  it("elementImages wins over its alias elements", () => {
    const plan = createPlan({ prompt: "p", elementImages: ["https://h/logo.png"], elements: ["https://h/other.png"] });
    expect(plan.kind === "prompt" && plan.elements).toEqual(["https://h/logo.png"]);
    const alias = createPlan({ prompt: "p", elements: ["https://h/other.webp"] });
    expect(alias.kind === "prompt" && alias.elements).toEqual(["https://h/other.webp"]);
  });

  it("images wins over its alias imageUrls; imageUrls alone is used", () => {
    expect(createPlan({ images: ["https://h/a.png"], imageUrls: ["https://h/b.png"] })).toMatchObject({ kind: "images", images: ["https://h/a.png"] });
    expect(createPlan({ imageUrls: ["https://h/b.png"] })).toMatchObject({ kind: "images", images: ["https://h/b.png"] });
  });

  it("image-based: any URL, file URLs and paths allowed in process", () => {
    const plan = createPlan({ images: ["https://h/A.JPG?x=1", "https://h/photo/123?w=1080", "file:///tmp/b.webp", "/tmp/c.jpeg", "rel/d.png"] });
    expect(plan.kind).toBe("images");
  });
});

describe("avatar edit validation, in the spec's order (the contract)", () => {
  const ok = { avatar_id: "av_1", look_id: "lk_1", prompt: "in a park" };
  const rejects: [Record<string, unknown>, string][] = [
    [{}, "MISSING_AVATAR_ID"],
    [{ look_id: "l", prompt: "p" }, "MISSING_AVATAR_ID"],
    [{ avatar_id: "", look_id: "l", prompt: "p" }, "MISSING_AVATAR_ID"],
    [{ avatar_id: 5, look_id: "l", prompt: "p" }, "MISSING_AVATAR_ID"],
    [{ avatar_id: "a" }, "MISSING_LOOK_ID"],
    [{ avatar_id: "a", look_id: "l" }, "MISSING_PROMPT"],
    [{ avatar_id: "a", look_id: "l", prompt: " " }, "MISSING_PROMPT"],
    [{ ...ok, prompt: "x".repeat(10_001) }, "INVALID_VALUE"],
    [{ ...ok, webhook_url: "nope" }, "INVALID_WEBHOOK_URL"],
    [{ ...ok, style: "iphone-pro" }, "INVALID_VALUE"],
    [{ ...ok, format: "square" }, "INVALID_VALUE"],
    [{ ...ok, resolution: "1K" }, "INVALID_VALUE"],
    [{ ...ok, imageUrls: ["gopher://h/x.png"] }, "INVALID_VALUE"],
    [{ ...ok, upscale: "yes" }, "INVALID_VALUE"],
    [{ ...ok, tags: "a,b" }, "INVALID_VALUE"],
    [{ ...ok, look_name: 3 }, "INVALID_VALUE"],
  ];
  it.each(rejects)("%j → %s", async (body, code) => {
    const r = await refused("avatarEdit", body);
    expect(r?.status).toBe(400);
    expect(r?.body).toEqual({ error: expect.any(String), code });
  });

  it("accepts the docs' names (upscale, look_name, place, tags) and raw; defaults to vertical 2K", async () => {
    const body = { ...ok, style: "raw" as const, upscale: true, look_name: "At the park", place: "park", tags: ["outdoor", "ugc"] };
    expect(await refused("avatarEdit", body)).toBeUndefined();
    expect(editPlan(body)).toMatchObject({
      style: "raw",
      format: "vertical",
      resolution: "2K",
      imageUrls: [],
      upscale: true,
      lookName: "At the park",
      place: "park",
      tags: ["outdoor", "ugc"],
    });
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

describe("avatar caps per plan", () => {
  it("are documented numbers that grow with the plan", () => {
    expect(AVATAR_LIMITS).toEqual({ free: 1, start: 3, PRO: 25, ENTREPRISE: 100 });
  });
});

describe("local files over HTTP (allowLocalFiles false)", () => {
  const http = { allowLocalFiles: false };
  const LOCAL = ["/tmp/a.png", "rel/b.jpg", "file:///tmp/c.webp", "file://relative.png", "C:\\pics\\d.png"];
  const cases: [string, (ref: string) => () => unknown][] = [
    ["images[1]", (ref) => () => createPlan({ images: ["https://h/ok.png", ref] }, http)],
    ["imageUrls[0]", (ref) => () => createPlan({ imageUrls: [ref] }, http)],
    ["elementImages[0]", (ref) => () => createPlan({ prompt: "p", elementImages: [ref] }, http)],
    ["elements[0]", (ref) => () => createPlan({ prompt: "p", elements: [ref] }, http)],
    ["imageUrls[0]", (ref) => () => editPlan({ avatar_id: "av_1", look_id: "lk_1", prompt: "p", imageUrls: [ref] }, http)],
  ];

  it.each(cases)("%s: a local path or file:// URL → 400 INVALID_VALUE, whatever the file", (field, call) => {
    for (const ref of [...LOCAL, "/tmp/not-even-an-image.txt"]) {
      const e = apiErrorOf(call(ref));
      expect(e.status).toBe(400);
      expect(e.body).toEqual({ error: `${field}: local files are not accepted over HTTP; use an http(s) URL`, code: "INVALID_VALUE" });
    }
  });

  it("http(s) image URLs are accepted; in process the local ones are too", () => {
    expect(createPlan({ images: ["https://h/a.png", "http://h/b.jpg"] }, http)).toMatchObject({ images: ["https://h/a.png", "http://h/b.jpg"] });
    const wellFormed = LOCAL.filter((r) => r !== "file://relative.png");
    expect(createPlan({ images: wellFormed })).toMatchObject({ kind: "images", images: wellFormed });
    expect(editPlan({ avatar_id: "a", look_id: "l", prompt: "p", imageUrls: wellFormed }, { allowLocalFiles: true }).imageUrls).toEqual(wellFormed);
  });
});
