/**
 * SHA-1 digests of finished turns, kept in resume states so an unchanged last turn is not returned again. Bun's own
 * hasher gives the same digest as node:crypto's without loading that module (3–5 ms of every start-up, issue 42).
 */

/** SHA-1 hex (40 characters) of bytes or UTF-8 text. */
export function hashOf(data: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha1").update(data).digest("hex");
}
