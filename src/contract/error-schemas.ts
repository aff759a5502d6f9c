/** The zod schemas of the service's error bodies (the types and helpers are in ./errors.ts). */
import { z } from "zod";

/** One entry of the spec's error envelope. */
export const ErrorDetail = z.object({
  code: z.string(),
  message: z.string(),
  field: z.string().optional(),
});
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** The spec's default error body: `{error, details:[{code, message, field?}]}`. */
export const ErrorEnvelope = z.looseObject({ error: z.string(), details: z.array(ErrorDetail) });
/** `{error, code}`: used by the upper-case codes of avatar, generation, export, duplicate, script. */
export const ErrorWithCode = z.looseObject({ error: z.string(), code: z.string() });
/** `{error, required, available}`: credit shortage on avatar create/edit. */
export const CreditShortageBody = z.looseObject({
  error: z.string(),
  code: z.string().optional(),
  required: z.number(),
  available: z.number(),
});
/** `{error}` alone: AVATAR_NOT_FOUND and the avatar status not-found family. */
export const ErrorOnly = z.looseObject({ error: z.string() });
export const ErrorBody = z.union([ErrorEnvelope, CreditShortageBody, ErrorWithCode, ErrorOnly]);
export type ErrorBody = z.infer<typeof ErrorBody>;
