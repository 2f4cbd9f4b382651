import * as Context from "effect/Context"

/**
 * The largest request body an endpoint takes when that is more than the server's own limit (`http.max_body`),
 * declared in the contract next to the endpoint: the server checks that endpoint's bodies against it instead (413).
 */
export class MaxBodyBytes extends Context.Service<MaxBodyBytes, number>()("@gatehouse-edge/contract/MaxBodyBytes") {}

/** The annotation that lets an endpoint take bodies up to `bytes`: `.annotateMerge(takesBodiesUpTo(n))`. */
export const takesBodiesUpTo = (bytes: number): Context.Context<MaxBodyBytes> => Context.make(MaxBodyBytes, bytes)

/** The body limit an endpoint declares, if it declares one. */
export const maxBodyBytesOf = (annotations: Context.Context<never>): number | undefined =>
  Context.getOrUndefined(annotations, MaxBodyBytes)
