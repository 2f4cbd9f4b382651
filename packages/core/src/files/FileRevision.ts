import { createHash } from "node:crypto"
import type { WritePrecondition } from "./Files.js"

/**
 * The revision of a file's content: the SHA-256 of its bytes, in hex. A strong validator: two revisions are equal
 * only for byte-identical files, so a write conditioned on one never replaces an edit it did not see.
 */
export const revisionOf = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

/** The file a precondition is checked against: missing, or present with its revision (none when too large to read). */
export type CurrentFile = { readonly exists: false } | { readonly exists: true; readonly revision: string | undefined }

/**
 * Why `precondition` does not hold for `current`, said after the file's name ("was changed since it was read"),
 * or `undefined` when it holds. `If-Match` is checked first, as RFC 9110 §13.2.2 orders them.
 */
export const preconditionProblem = (precondition: WritePrecondition, current: CurrentFile): string | undefined => {
  const { ifMatch, ifNoneMatch } = precondition
  if (ifMatch !== undefined) {
    if (!current.exists) return "does not exist (If-Match expects it to)"
    if (ifMatch !== "any" && (current.revision === undefined || !ifMatch.includes(current.revision))) {
      return "was changed since it was read (its ETag no longer matches If-Match): read it again and redo the edit"
    }
  }
  if (ifNoneMatch !== undefined && current.exists) {
    if (ifNoneMatch === "any") return "already exists (If-None-Match: * only creates a file)"
    if (current.revision !== undefined && ifNoneMatch.includes(current.revision)) {
      return "is at a version If-None-Match excludes"
    }
  }
  return undefined
}
