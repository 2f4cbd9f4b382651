import type {
  AuthRequest,
  AuthRequestFilter,
  CertRenewFrame,
  ContainerAction,
  ContainerLogLine,
  ContainerStats,
  ContainerSummary,
  Event,
  FileType,
  HealthMap,
  LxcAction,
  NewApiKey,
  NewAuthRequest,
  NewUser,
  NodeStats,
  RouteEntry,
  RouteUptimePage,
  RouteValidationMessage
} from "@gatehouse-edge/contract/domain"
import type * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Stream from "effect/Stream"
import type { EndpointName, EndpointOf, EndpointSuccess, GroupName } from "./ApiCalls.js"
import type { FileVersion, FileWriteVersion } from "./FileVersions.js"
import { GatehouseClient, type GatehouseClientOptions, type GatehouseClientShape } from "./GatehouseClient.js"
import type { EventsQuery, JournalQuery, LogsQuery, TailQuery, UptimeMetricsQuery } from "./GatehouseStreams.js"
import type { WatchOptions } from "./Reconnect.js"

/** Options of one call. */
export interface CallOptions {
  /** Aborts the request; the promise then rejects with the signal's reason (an `AbortError` unless given one). */
  readonly signal?: AbortSignal | undefined
}

type Result<G extends GroupName, N extends EndpointName<G>> = Promise<EndpointSuccess<EndpointOf<G, N>>>

/** Options of a file write: the call's, and the conditions it is made on (else 412 `FilePreconditionFailed`). */
export interface FileWriteOptions extends CallOptions {
  /** Only if the file is still at this version (an `etag` read or written before); `"*"`: only if it exists. */
  readonly ifMatch?: string | undefined
  /** `"*"`: only if the file does not exist yet (creating it). */
  readonly ifNoneMatch?: string | undefined
}

// The conditions as the write's headers; absent ones are left out, not sent empty.
const conditions = (options: FileWriteOptions | undefined) => ({
  ...(options?.ifMatch === undefined ? {} : { "if-match": options.ifMatch }),
  ...(options?.ifNoneMatch === undefined ? {} : { "if-none-match": options.ifNoneMatch })
})

/**
 * The Gatehouse API for code that does not use Effect. Calls return promises that reject with the same typed
 * error instances as the Effect client (`err instanceof RouteNotFound`, `err._tag`); streams are `AsyncIterable`s
 * whose socket closes when the loop ends (`break`, `return`, an exception) or the stream fails. Streams that follow
 * take `{ reconnect }` last, as in the Effect client (`ReconnectOptions`: notices by `onDisconnect`/`onReconnect`).
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
    readonly watch: (options?: WatchOptions) => AsyncIterable<ReadonlyArray<RouteEntry>>
    readonly validateStream: (
      documents: AsyncIterable<string> | Iterable<string>
    ) => AsyncIterable<RouteValidationMessage>
  }
  readonly health: {
    readonly get: (options?: CallOptions) => Result<"health", "get">
    readonly watch: (options?: WatchOptions) => AsyncIterable<HealthMap>
  }
  readonly events: {
    readonly list: (query?: EventsQuery, options?: CallOptions) => Result<"events", "list">
    /** The history, then live events; with `{ reconnect: true }` it resumes after the last event it gave. */
    readonly watch: (query?: EventsQuery, options?: WatchOptions) => AsyncIterable<Event>
  }
  /**
   * The editable files. An editor reads with `readWithEtag` and writes back with `{ ifMatch: etag }`: an edit made
   * meanwhile makes the write fail with `FilePreconditionFailed` (412) instead of being overwritten unseen.
   */
  readonly files: {
    readonly list: (options?: CallOptions) => Result<"files", "list">
    readonly read: (type: FileType, filename: string, options?: CallOptions) => Result<"files", "read">
    /** The text and its `ETag`. */
    readonly readWithEtag: (type: FileType, filename: string, options?: CallOptions) => Promise<FileVersion>
    readonly write: (
      type: FileType,
      filename: string,
      content: string,
      options?: FileWriteOptions
    ) => Result<"files", "write">
    /** `write`, with the `ETag` of what it wrote: the `ifMatch` of the next save. */
    readonly writeWithEtag: (
      type: FileType,
      filename: string,
      content: string,
      options?: FileWriteOptions
    ) => Promise<FileWriteVersion>
    readonly validate: (type: FileType, content: string, options?: CallOptions) => Result<"files", "validate">
  }
  /** Interactive auth requests (the HTTP binding of `gatehouse.v1.AuthService`). */
  readonly authRequests: {
    readonly create: (request: NewAuthRequest, options?: CallOptions) => Result<"authRequests", "create">
    readonly get: (authId: string, options?: CallOptions) => Result<"authRequests", "get">
    /** One page: at most `filter.limit` (default 1000), after `filter.before` (the last `auth_id` of a page). */
    readonly list: (filter?: AuthRequestFilter, options?: CallOptions) => Result<"authRequests", "list">
    /** `for await` every matching request, newest first, fetched a page at a time; `break` stops fetching. */
    readonly listAll: (filter?: AuthRequestFilter) => AsyncIterable<AuthRequest>
    readonly approve: (authId: string, options?: CallOptions) => Result<"authRequests", "approve">
    readonly reject: (authId: string, options?: CallOptions) => Result<"authRequests", "reject">
    readonly register: (authId: string, user: string, options?: CallOptions) => Result<"authRequests", "register">
    /** The current state, then each change; the loop ends after a final state. */
    readonly watch: (authId: string, options?: WatchOptions) => AsyncIterable<AuthRequest>
    readonly createUser: (user: NewUser, options?: CallOptions) => Result<"authRequests", "createUser">
    readonly listUsers: (options?: CallOptions) => Result<"authRequests", "listUsers">
    readonly listNodes: (user?: string, options?: CallOptions) => Result<"authRequests", "listNodes">
  }
  /** Proxmox VE nodes and LXC containers. */
  readonly hypervisor: {
    /** Each configured cluster: `stale` (and why) when its last refresh failed and the lists show older data. */
    readonly clusters: (options?: CallOptions) => Result<"hypervisor", "clusters">
    readonly nodes: (options?: CallOptions) => Result<"hypervisor", "nodes">
    readonly guests: (options?: CallOptions) => Result<"hypervisor", "guests">
    readonly nodeStats: (node: string, options?: CallOptions) => Result<"hypervisor", "nodeStats">
    /** The `STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O` line. */
    readonly guestStats: (node: string, vmid: number, options?: CallOptions) => Result<"hypervisor", "guestStats">
    /** Starts, stops (gracefully) or restarts a container; resolves once Proxmox's task finished. */
    readonly lxc: (node: string, vmid: number, action: LxcAction, options?: CallOptions) => Result<"hypervisor", "lxc">
    readonly watchNodeStats: (node: string, options?: WatchOptions) => AsyncIterable<NodeStats>
    readonly watchGuestStats: (node: string, vmid: number, options?: WatchOptions) => AsyncIterable<string>
    /** The last lines of a journal, then each new line; `break` closes the socket and ends the remote command. */
    readonly journal: (query: JournalQuery, options?: WatchOptions) => AsyncIterable<string>
    /** The last lines of files, then each new line. */
    readonly tail: (query: TailQuery, options?: WatchOptions) => AsyncIterable<string>
  }
  /** Docker and Podman engines; containers by id, unique id prefix or name. */
  readonly docker: {
    readonly containers: (options?: CallOptions) => Result<"docker", "containers">
    readonly stats: (id: string, options?: CallOptions) => Result<"docker", "stats">
    /** The last lines (`limit`, default 100) of stdout and stderr. */
    readonly logs: (id: string, query?: LogsQuery, options?: CallOptions) => Result<"docker", "logs">
    readonly act: (id: string, action: ContainerAction, options?: CallOptions) => Result<"docker", "act">
    readonly watchContainers: (options?: WatchOptions) => AsyncIterable<ReadonlyArray<ContainerSummary>>
    readonly watchStats: (id: string, options?: WatchOptions) => AsyncIterable<ContainerStats>
    readonly followLogs: (id: string, query?: LogsQuery, options?: WatchOptions) => AsyncIterable<ContainerLogLine>
  }
  /**
   * Signing in and out with a password. In a browser the answer's cookies are kept by the browser, and every later
   * call of this client is made as the signed-in user.
   */
  readonly login: {
    readonly login: (username: string, password: string, options?: CallOptions) => Result<"login", "login">
    readonly logout: (options?: CallOptions) => Result<"login", "logoutJson">
  }
  /** Who is calling; API keys and browser sessions (admins). */
  readonly access: {
    readonly whoami: (options?: CallOptions) => Result<"access", "whoami">
    readonly listApiKeys: (options?: CallOptions) => Result<"access", "listApiKeys">
    readonly createApiKey: (request: NewApiKey, options?: CallOptions) => Result<"access", "createApiKey">
    readonly revokeApiKey: (name: string, options?: CallOptions) => Result<"access", "revokeApiKey">
    readonly listSessions: (options?: CallOptions) => Result<"access", "listSessions">
    readonly revokeSession: (id: string, options?: CallOptions) => Result<"access", "revokeSession">
  }
  /** Certificates from files and ACME. */
  readonly certs: {
    /** Every available certificate; `CertificateNotFound` when there is none. */
    readonly info: (options?: CallOptions) => Result<"certs", "info">
    /** Renews the ACME certificates (or the one named) and resolves with every certificate after it. */
    readonly renew: (name?: string, options?: CallOptions) => Result<"certs", "renew">
    /** The same renewal, with its progress frames and then the result frame. */
    readonly renewWithProgress: (name?: string) => AsyncIterable<CertRenewFrame>
  }
  /** Metrics of the routes. */
  readonly metrics: {
    /** One page of uptime aggregates: `period` (default 1d), `limit` (1–1000, default 100), `offset`, `keyword`. */
    readonly uptime: (query?: UptimeMetricsQuery, options?: CallOptions) => Result<"metrics", "uptime">
    /** The page, then the page again after every sample (every second). */
    readonly watchUptime: (query?: UptimeMetricsQuery, options?: WatchOptions) => AsyncIterable<RouteUptimePage>
  }
  /** Closes every open stream and releases the client. */
  readonly close: () => Promise<void>
}

// Optional fields the caller left undefined are left out: the contract's optional keys take no `undefined`.
// (JavaScript, and TypeScript without exactOptionalPropertyTypes, write `{ since: undefined }` for "not given".)
const defined = <A extends object>(value: A) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof A]: Exclude<A[K], undefined>
  }

const isAsyncIterable = <A>(value: AsyncIterable<A> | Iterable<A>): value is AsyncIterable<A> =>
  Symbol.asyncIterator in value

/** Creates a promise-based Gatehouse client. Call `close()` (or use `await using`) when done. */
export const createGatehouseClient = (options: GatehouseClientOptions): GatehousePromiseClient => {
  const runtime = ManagedRuntime.make(GatehouseClient.layer(options))
  const open = new Set<AsyncIterator<unknown>>()
  // A disposed runtime rejects with a bare string ("ManagedRuntime disposed"): a closed client says so with an Error.
  let closed = false
  const closedError = () => new Error("the Gatehouse client is closed")

  // An aborted call rejects with the signal's reason, as `fetch` does (the runtime would reject with its own
  // interruption error, which a caller cannot tell from a failure).
  const call = <A, E>(f: (client: GatehouseClientShape) => Effect.Effect<A, E>, callOptions?: CallOptions) => {
    if (closed) return Promise.reject(closedError())
    const signal = callOptions?.signal
    const result = runtime.runPromise(GatehouseClient.use(f), signal === undefined ? undefined : { signal })
    return signal === undefined
      ? result
      : result.catch((error: unknown) => Promise.reject(signal.aborted ? signal.reason : error))
  }

  // The stream starts on the first `next()`; `return()` (what `break` calls) interrupts it, closing the socket.
  const iterate = <A, E>(f: (client: GatehouseClientShape) => Stream.Stream<A, E>): AsyncIterable<A> => ({
    [Symbol.asyncIterator]() {
      let inner: Promise<AsyncIterator<A>> | undefined
      const start = () =>
        (inner ??= (closed ? Promise.reject(closedError()) : runtime.context()).then((context) =>
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
    closed = true
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
      watch: (w) => iterate((c) => c.routes.watch(w)),
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
      watch: (w) => iterate((c) => c.health.watch(w))
    },
    events: {
      list: (query, o) => call((c) => c.events.list({ query: defined(query ?? {}) }), o),
      watch: (query, w) => iterate((c) => c.events.watch(defined(query ?? {}), w))
    },
    files: {
      list: (o) => call((c) => c.files.list(), o),
      read: (type, filename, o) => call((c) => c.files.read({ query: { type, filename } }), o),
      readWithEtag: (type, filename, o) => call((c) => c.files.readWithEtag({ query: { type, filename } }), o),
      write: (type, filename, content, o) =>
        call((c) => c.files.write({ query: { type, filename }, payload: content, headers: conditions(o) }), o),
      writeWithEtag: (type, filename, content, o) =>
        call((c) => c.files.writeWithEtag({ query: { type, filename }, payload: content, headers: conditions(o) }), o),
      validate: (type, content, o) => call((c) => c.files.validate({ query: { type }, payload: content }), o)
    },
    authRequests: {
      create: (request, o) => call((c) => c.authRequests.create({ payload: request }), o),
      get: (authId, o) => call((c) => c.authRequests.get({ params: { auth_id: authId } }), o),
      list: (filter, o) => call((c) => c.authRequests.list({ query: defined(filter ?? {}) }), o),
      listAll: (filter) => iterate((c) => c.authRequests.listAll(filter)),
      approve: (authId, o) => call((c) => c.authRequests.approve({ payload: { auth_id: authId } }), o),
      reject: (authId, o) => call((c) => c.authRequests.reject({ payload: { auth_id: authId } }), o),
      register: (authId, user, o) => call((c) => c.authRequests.register({ payload: { auth_id: authId, user } }), o),
      watch: (authId, w) => iterate((c) => c.authRequests.watch(authId, w)),
      createUser: (user, o) => call((c) => c.authRequests.createUser({ payload: defined(user) }), o),
      listUsers: (o) => call((c) => c.authRequests.listUsers(), o),
      listNodes: (user, o) => call((c) => c.authRequests.listNodes({ query: defined({ user }) }), o)
    },
    hypervisor: {
      clusters: (o) => call((c) => c.hypervisor.clusters(), o),
      nodes: (o) => call((c) => c.hypervisor.nodes(), o),
      guests: (o) => call((c) => c.hypervisor.guests(), o),
      nodeStats: (node, o) => call((c) => c.hypervisor.nodeStats({ params: { node } }), o),
      guestStats: (node, vmid, o) => call((c) => c.hypervisor.guestStats({ params: { node, vmid } }), o),
      lxc: (node, vmid, action, o) => call((c) => c.hypervisor.lxc({ params: { node, vmid, action } }), o),
      watchNodeStats: (node, w) => iterate((c) => c.hypervisor.watchNodeStats(node, w)),
      watchGuestStats: (node, vmid, w) => iterate((c) => c.hypervisor.watchGuestStats(node, vmid, w)),
      journal: (query, w) => iterate((c) => c.hypervisor.journal(defined(query), w)),
      tail: (query, w) => iterate((c) => c.hypervisor.tail(defined(query), w))
    },
    docker: {
      containers: (o) => call((c) => c.docker.containers(), o),
      stats: (id, o) => call((c) => c.docker.stats({ params: { id } }), o),
      logs: (id, query, o) => call((c) => c.docker.logs({ params: { id }, query: defined(query ?? {}) }), o),
      act: (id, action, o) => call((c) => c.docker.act({ params: { id, action } }), o),
      watchContainers: (w) => iterate((c) => c.docker.watchContainers(w)),
      watchStats: (id, w) => iterate((c) => c.docker.watchStats(id, w)),
      followLogs: (id, query, w) => iterate((c) => c.docker.followLogs(id, defined(query ?? {}), w))
    },
    login: {
      login: (username, password, o) => call((c) => c.login.login({ payload: { username, password } }), o),
      logout: (o) => call((c) => c.login.logoutJson(), o)
    },
    access: {
      whoami: (o) => call((c) => c.access.whoami(), o),
      listApiKeys: (o) => call((c) => c.access.listApiKeys(), o),
      createApiKey: (request, o) => call((c) => c.access.createApiKey({ payload: request }), o),
      revokeApiKey: (name, o) => call((c) => c.access.revokeApiKey({ params: { name } }), o),
      listSessions: (o) => call((c) => c.access.listSessions(), o),
      revokeSession: (id, o) => call((c) => c.access.revokeSession({ params: { id } }), o)
    },
    certs: {
      info: (o) => call((c) => c.certs.info(), o),
      renew: (name, o) => call((c) => c.certs.renew({ query: defined({ name }) }), o),
      renewWithProgress: (name) => iterate((c) => c.certs.renewWithProgress(name))
    },
    metrics: {
      uptime: (query, o) => call((c) => c.metrics.uptime({ query: defined(query ?? {}) }), o),
      watchUptime: (query, w) => iterate((c) => c.metrics.watchUptime(defined(query ?? {}), w))
    },
    close,
    [Symbol.asyncDispose]: close
  }
}
