import {
  AcmeCaUnreadable,
  RoutesDirUnusable,
  SecretUnreadable,
  StoreInUse,
  StoreLockFailed,
  StoreNotGatehouse,
  StoreOpenFailed,
  StoreSchemaTooNew
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

/**
 * A one-paragraph explanation of why the server could not start, for the failures an operator can fix
 * (address in use, invalid route files with --strict, an unusable or foreign store, an unreadable secret file, a
 * routes_dir that is not a directory);
 * `undefined` for anything unexpected, which is then reported in full.
 */
export const describeStartupFailure = (cause: Cause.Cause<unknown>, httpAddress: string): string | undefined => {
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
  return undefined
}
