/** SHA-1 digests of finished turns, kept in resume states so an unchanged last turn is not returned again. */
import { createHash } from "node:crypto";

/** SHA-1 hex (40 characters) of bytes or UTF-8 text. */
export function hashOf(data: Uint8Array | string): string {
  return createHash("sha1").update(data).digest("hex");
}
