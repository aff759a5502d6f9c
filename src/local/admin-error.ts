/** An admin request that cannot be done: `not_found` (exit 4 in the CLI) or `invalid` input (exit 2). */
export class LocalAdminError extends Error {
  override readonly name = "LocalAdminError";
  constructor(
    readonly kind: "not_found" | "invalid",
    message: string,
  ) {
    super(message);
  }
}
