import {
  AcmeCaUnreadable,
  damagedStoreRemedy,
  RoutesDirUnusable,
  SecretUnreadable,
  StoreDamaged,
  StoreInUse,
  StoreLockFailed,
  StoreNotGatehouse,
  StoreOpenFailed,
  StoreSchemaTooNew,
  type StoreTrouble,
  storeTroubleIn
} from "@gatehouse-edge/core"
import { formatIssue, ValidationFailed } from "@gatehouse-edge/core/domain"
import { GrpcServerError } from "@gatehouse-edge/transport-grpc"
import * as Cause from "effect/Cause"
import * as HttpServerError from "effect/http/HttpServerError"

const errorOf = (cause: Cause.Cause<unknown>): unknown => {
  const reason = cause.reasons.find((r) => Cause.isFailReason(r) || Cause.isDieReason(r))
  return reason === undefined
    ? undefined
    : Cause.isFailReason(reason)
      ? reason.error
      : Cause.isDieReason(reason)
        ? reason.defect
        : undefined
}

const codeOf = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

// What an operator does about a store that failed while the server started (see StoreTrouble).
const storeRemedies: Partial<Record<StoreTrouble["kind"], string>> = {
  damaged: damagedStoreRemedy,
  full: "Free space on its file system, then start again",
  "read-only": "Check the file's and its directory's owner and mode, and that the file system is mounted read-write",
  locked: "Another process holds it (the sqlite3 shell in a transaction, a backup): let it finish, then start again",
  failing: "Check the disk (the kernel log names the device)"
}

/**
 * A one-paragraph explanation of why the server could not start, for the failures an operator can fix
 * (address in use, invalid route files with --strict, an unusable or foreign store, an unreadable secret file, a
 * routes_dir that is not a directory);
 * `undefined` for anything unexpected, which is then reported in full.
 */
export const describeStartupFailure = (
  cause: Cause.Cause<unknown>,
  httpAddress: string,
  storeFile = "the store"
): string | undefined => {
  const error = errorOf(cause)
  if (error instanceof HttpServerError.ServeError) {
    const code = codeOf(error)
    if (code === "EADDRINUSE") return `cannot listen on ${httpAddress}: the address is already in use`
    if (code === "EACCES") return `cannot listen on ${httpAddress}: permission denied`
    return `cannot listen on ${httpAddress}: ${code ?? error.message}`
  }
  if (error instanceof ValidationFailed) {
    return [
      "the route files are invalid; fix them (`gatehouse validate <files>`) and start again:",
      ...error.issues.map((issue) => `  ${formatIssue(issue)}`)
    ].join("\n")
  }
  if (
    error instanceof StoreOpenFailed ||
    error instanceof StoreDamaged ||
    error instanceof StoreSchemaTooNew ||
    error instanceof StoreNotGatehouse ||
    error instanceof StoreInUse ||
    error instanceof StoreLockFailed ||
    error instanceof SecretUnreadable ||
    error instanceof AcmeCaUnreadable ||
    error instanceof RoutesDirUnusable ||
    error instanceof GrpcServerError
  ) {
    return error.message
  }
  // A statement of a starting service (reading the event history, the keys) found the store unusable.
  const trouble = storeTroubleIn(cause)
  const remedy = trouble === undefined ? undefined : storeRemedies[trouble.kind]
  if (trouble !== undefined && remedy !== undefined) return `the store ${storeFile} ${trouble.problem}. ${remedy}`
  return undefined
}
