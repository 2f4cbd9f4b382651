import type { Event, FileType, HealthMap, RouteEntry, RouteValidationMessage } from "@gatehouse-edge/core/domain"
import { type Effect, ManagedRuntime, Stream } from "effect"
import type { EndpointName, EndpointOf, EndpointSuccess, GroupName } from "./ApiCalls.js"
import { GatehouseClient, type GatehouseClientOptions, type GatehouseClientShape } from "./GatehouseClient.js"
import type { EventsQuery } from "./GatehouseStreams.js"

/** Options of one call. */
export interface CallOptions {
  /** Aborts the request; the promise then rejects. */
  readonly signal?: AbortSignal | undefined
}

type Result<G extends GroupName, N extends EndpointName<G>> = Promise<EndpointSuccess<EndpointOf<G, N>>>

/**
 * The Gatehouse API for code that does not use Effect. Calls return promises that reject with the same typed
 * error instances as the Effect client (`err instanceof RouteNotFound`, `err._tag`); streams are `AsyncIterable`s
 * whose socket closes when the loop ends (`break`, `return`, an exception) or the stream fails.
 */
export interface GatehousePromiseClient extends AsyncDisposable {
  readonly system: {
    readonly version: (options?: CallOptions) => Result<"system", "version">
    readonly openapiJson: (options?: CallOptions) => Result<"system", "openapiJson">
    readonly openapiYaml: (options?: CallOptions) => Result<"system", "openapiYaml">
  }
  readonly routes: {
    readonly list: (options?: CallOptions) => Result<"routes", "list">
    readonly get: (alias: string, options?: CallOptions) => Result<"routes", "get">
    /** Validates a YAML document (one route with `alias`, or a map `alias → route`). */
    readonly validate: (yaml: string, options?: CallOptions) => Result<"routes", "validate">
    readonly watch: () => AsyncIterable<ReadonlyArray<RouteEntry>>
    readonly validateStream: (
      documents: AsyncIterable<string> | Iterable<string>
    ) => AsyncIterable<RouteValidationMessage>
  }
  readonly health: {
    readonly get: (options?: CallOptions) => Result<"health", "get">
    readonly watch: () => AsyncIterable<HealthMap>
  }
  readonly events: {
    readonly list: (query?: EventsQuery, options?: CallOptions) => Result<"events", "list">
    readonly watch: (query?: EventsQuery) => AsyncIterable<Event>
  }
  readonly files: {
    readonly list: (options?: CallOptions) => Result<"files", "list">
    readonly read: (type: FileType, filename: string, options?: CallOptions) => Result<"files", "read">
    readonly write: (
      type: FileType,
      filename: string,
      content: string,
      options?: CallOptions
    ) => Result<"files", "write">
    readonly validate: (type: FileType, content: string, options?: CallOptions) => Result<"files", "validate">
  }
  /** Closes every open stream and releases the client. */
  readonly close: () => Promise<void>
}

const isAsyncIterable = <A>(value: AsyncIterable<A> | Iterable<A>): value is AsyncIterable<A> =>
  Symbol.asyncIterator in value

/** Creates a promise-based Gatehouse client. Call `close()` (or use `await using`) when done. */
export const createGatehouseClient = (options: GatehouseClientOptions): GatehousePromiseClient => {
  const runtime = ManagedRuntime.make(GatehouseClient.layer(options))
  const open = new Set<AsyncIterator<unknown>>()

  const call = <A, E>(f: (client: GatehouseClientShape) => Effect.Effect<A, E>, callOptions?: CallOptions) =>
    runtime.runPromise(GatehouseClient.use(f), callOptions)

  // The stream starts on the first `next()`; `return()` (what `break` calls) interrupts it, closing the socket.
  const iterate = <A, E>(f: (client: GatehouseClientShape) => Stream.Stream<A, E>): AsyncIterable<A> => ({
    [Symbol.asyncIterator]() {
      let inner: Promise<AsyncIterator<A>> | undefined
      const start = () =>
        (inner ??= runtime
          .context()
          .then((context) =>
            Stream.toAsyncIterableWith(Stream.unwrap(GatehouseClient.useSync(f)), context)[Symbol.asyncIterator]()
          ))
      const finish = async () => {
        open.delete(iterator)
        if (inner !== undefined) await (await inner).return?.()
        return { done: true as const, value: undefined }
      }
      const iterator: AsyncIterator<A> = {
        next: async () => {
          try {
            const result = await (await start()).next()
            if (result.done === true) open.delete(iterator)
            return result
          } catch (error) {
            open.delete(iterator)
            throw error
          }
        },
        return: finish
      }
      open.add(iterator)
      return iterator
    }
  })

  const close = async () => {
    await Promise.all([...open].map((iterator) => iterator.return?.()))
    await runtime.dispose()
  }

  return {
    system: {
      version: (o) => call((c) => c.system.version(), o),
      openapiJson: (o) => call((c) => c.system.openapiJson(), o),
      openapiYaml: (o) => call((c) => c.system.openapiYaml(), o)
    },
    routes: {
      list: (o) => call((c) => c.routes.list(), o),
      get: (alias, o) => call((c) => c.routes.get({ params: { alias } }), o),
      validate: (yaml, o) => call((c) => c.routes.validate({ payload: yaml }), o),
      watch: () => iterate((c) => c.routes.watch()),
      validateStream: (documents) =>
        iterate((c) =>
          c.routes.validateStream(
            isAsyncIterable(documents)
              ? Stream.fromAsyncIterable(documents, (error) => error)
              : Stream.fromIterable(documents)
          )
        )
    },
    health: {
      get: (o) => call((c) => c.health.get(), o),
      watch: () => iterate((c) => c.health.watch())
    },
    events: {
      list: (query, o) => call((c) => c.events.list(query === undefined ? {} : { query }), o),
      watch: (query) => iterate((c) => c.events.watch(query))
    },
    files: {
      list: (o) => call((c) => c.files.list(), o),
      read: (type, filename, o) => call((c) => c.files.read({ query: { type, filename } }), o),
      write: (type, filename, content, o) =>
        call((c) => c.files.write({ query: { type, filename }, payload: content }), o),
      validate: (type, content, o) => call((c) => c.files.validate({ query: { type }, payload: content }), o)
    },
    close,
    [Symbol.asyncDispose]: close
  }
}
