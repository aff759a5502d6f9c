/** Request fields that treat null and blank text as absent, with the code the endpoint gives for that. */
import { z } from "zod";

/**
 * A field the service reads as absent when it is null or blank (the local instance has always
 * answered `missing_field` for those): reported with `code` (the missing code of the endpoint, or
 * another where the spec names one), before `inner` judges the value. `absentToo` reports an absent
 * field with `code` as well (a field the spec makes required but reports as invalid when left out).
 */
export function present<T extends z.ZodType>(inner: T, code: string, opts: { absentToo?: boolean; message?: string } = {}) {
  return z.preprocess((v, ctx) => {
    if (v === null || (typeof v === "string" && v.trim() === "") || (opts.absentToo && v === undefined)) {
      ctx.addIssue({ code: "custom", message: opts.message ?? "is required", params: { code }, input: v });
      return z.NEVER;
    }
    return v;
  }, inner);
}
