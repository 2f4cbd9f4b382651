import {
  type AuthRequest,
  type AuthRequestFilter,
  type AuthRequestPage,
  InvalidArgument
} from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { checkListFilter } from "./AuthRequestInput.js"
import type { AuthRequestRepository, RequestRecord } from "./AuthRequestRepository.js"

// A page's cursor is the position of the request it names; a request that is not there (never was, or was deleted
// after its retention) is refused rather than read as "from the start", which would repeat pages.
const positionOf = (repository: AuthRequestRepository["Service"], authId: string) =>
  repository.findRequest(authId).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => {
          const message =
            `auth request ${authId} not found (deleted after its retention, or never there); ` +
            "start again from the first page"
          return Effect.fail(
            new InvalidArgument({ message: `before: ${message}`, issues: [{ path: ["before"], message }] })
          )
        },
        onSome: (found) => Effect.succeed({ created_at: found.created_at, auth_id: found.auth_id })
      })
    )
  )

/**
 * `AuthRequests.listPage` on the repository: the filter checked, the cursor found, one query for the page (keyset
 * paging: never an offset), the page rendered with `render`.
 */
export const makeListPage = (
  repository: AuthRequestRepository["Service"],
  render: (records: ReadonlyArray<RequestRecord>) => Effect.Effect<ReadonlyArray<AuthRequest>>
) =>
  Effect.fn("AuthRequests.listPage")(function* (filter: AuthRequestFilter) {
    const checked = yield* checkListFilter(filter)
    const after = checked.before === undefined ? undefined : yield* positionOf(repository, checked.before)
    // One row more than the page says whether another page follows, without a second query.
    const records = yield* repository.listRequests({
      state: checked.state,
      kind: checked.kind,
      src: checked.src,
      dst: checked.dst,
      local_user: checked.local_user,
      decidedAfter: checked.decidedAfter,
      after,
      limit: checked.limit + 1
    })
    const page = records.slice(0, checked.limit)
    const result: AuthRequestPage = {
      auth_requests: yield* render(page),
      ...(records.length > checked.limit ? { next_before: page.at(-1)!.auth_id } : {})
    }
    return result
  })
