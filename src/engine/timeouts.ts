/**
 * How long one request to the hosted service may take, its retries and their pauses included, when
 * neither --request-timeout nor MEDIAGEN_REQUEST_TIMEOUT says. A tiny module, so the CLI frame reads
 * it without loading the HTTP client.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
