import { type AuthRequest, type AuthRequestFilter, authRequestPageSize } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/**
 * Every request matching the filter, newest first, from one page call per page as the stream is read: each next
 * page is the one `before` the last request received. `GET /auth/requests` answers an array (the contract may
 * only gain), so a page shorter than the page size is the last.
 */
export const followAuthRequestPages =
  <E>(page: (filter: AuthRequestFilter) => Effect.Effect<ReadonlyArray<AuthRequest>, E>) =>
  (filter: AuthRequestFilter = {}): Stream.Stream<AuthRequest, E> => {
    const size = filter.limit ?? authRequestPageSize.default
    return Stream.paginate(filter.before, (before) =>
      Effect.map(page({ ...filter, before }), (requests) => {
        const last = requests.at(-1)
        return [requests, last === undefined || requests.length < size ? Option.none() : Option.some(last.auth_id)]
      })
    )
  }
