/**
 * English for messages built from values: "an image model", "1 request", "2 requests". Every layer
 * (the instance's errors, the CLI's talk) writes its counts and articles through these.
 */

/** "a video", "an image", "an export", "a user" (a vowel letter, except a "u" read "you"). */
export function withArticle(word: string): string {
  return /^(?:[aeio]|u(?![nr]?i|s[eu]|t[ei]))/i.test(word) ? `an ${word}` : `a ${word}`;
}

/** "1 request", "2 requests", "0 requests"; `many` for irregular plurals. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
