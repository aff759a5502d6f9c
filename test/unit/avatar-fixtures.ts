/**
 * Helpers for the avatar and voice tests: a request context for a space of any plan (the service
 * refuses plans below PRO before a rule runs, so rules of lower plans are exercised directly),
 * PNG/WAV readers, and a way to catch the service's error bodies.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { expect } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import type { Plan } from "../../src/contract/plans.js";
import type { LocalInstance } from "../../src/local/instance.js";
import type { RequestContext, SpaceRow } from "../../src/local/types.js";
import { getTools } from "../../src/media/tools.js";
import { ff } from "../helpers/fixture-ffmpeg.js";

export function spaceRow(instance: LocalInstance, id: string): SpaceRow {
  return instance.db.prepare("SELECT * FROM spaces WHERE id = ?").get(id) as SpaceRow;
}

/**
 * A new space of `plan` with `credits`, and a request context on it: in process by default
 * (`allowLocalFiles` true), or as a request over HTTP sees it with `allowLocalFiles: false` (and,
 * as the server's default, no private network either).
 */
export function contextFor(instance: LocalInstance, plan: Plan, credits = 100, simulate?: string, allowLocalFiles = true): RequestContext {
  const { space } = instance.createSpace({ plan, credits });
  return { instance, space: spaceRow(instance, space.id), simulate, urls: instance.fileUrls(), allowLocalFiles, allowPrivateNetwork: allowLocalFiles };
}

/** Inserts a custom avatar with one look in `status` straight into the store (cap tests). */
export function insertAvatar(instance: LocalInstance, spaceId: string, id: string, status: "ready" | "pending" | "error" = "ready"): void {
  const now = new Date(0).toISOString();
  instance.db
    .prepare("INSERT INTO avatars (id, space_id, name, gender, age, age_range, ethnicity, hair_color, created_at) VALUES (?, ?, 'n', 'male', '30', 'adult', 'x', 'x', ?)")
    .run(id, spaceId, now);
  instance.db
    .prepare(
      `INSERT INTO looks (id, space_id, avatar_id, task, name, place, accessories, action, emotion, selfie, format, model_available,
         status, error_code, error_message, cost_milli, created_at, updated_at)
       VALUES (?, ?, ?, 'avatar_create', 'n', 'studio', '[]', 'talking', 'neutral', 0, 'vertical', '[]', ?, NULL, ?, 0, ?, ?)`,
    )
    .run(`lk_of_${id}`, spaceId, id, status, status === "error" ? "failed" : null, now, now);
}

/** The error a call rejects with (ApiError), failing the test if it resolves. */
export async function rejection(p: Promise<unknown> | (() => unknown)): Promise<ApiError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected the call to fail");
}

export function expectError(e: ApiError, status: number, body: unknown): void {
  expect({ status: e.status, body: e.body }).toEqual({ status, body });
}

/** Reads a PNG's size from a file:// URL or path; undefined when it is not a PNG. */
export function pngSizeOf(urlOrPath: string): { width: number; height: number } | undefined {
  const p = urlOrPath.startsWith("file:") ? fileURLToPath(urlOrPath) : urlOrPath;
  const b = fs.readFileSync(p);
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Duration of a PCM WAV in ms from its header; undefined when it is not one. */
export function wavDurationMs(urlOrPath: string): number | undefined {
  const p = urlOrPath.startsWith("file:") ? fileURLToPath(urlOrPath) : urlOrPath;
  const b = fs.readFileSync(p);
  if (b.toString("ascii", 0, 4) !== "RIFF" || b.toString("ascii", 8, 12) !== "WAVE") return undefined;
  let i = 12;
  let byteRate = 0;
  while (i + 8 <= b.length) {
    const id = b.toString("ascii", i, i + 4);
    const size = b.readUInt32LE(i + 4);
    if (id === "fmt ") byteRate = b.readUInt32LE(i + 16);
    if (id === "data" && byteRate > 0) return (Math.min(size, b.length - i - 8) / byteRate) * 1000;
    i += 8 + size + (size % 2);
  }
  return undefined;
}

/** Writes a real image of `width`x`height` with ffmpeg (type by extension). */
export async function writeImage(file: string, width: number, height: number): Promise<string> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  ff(await getTools(), ["-f", "lavfi", "-i", `color=orange:s=${width}x${height}`, "-frames:v", "1", file]);
  return file;
}
