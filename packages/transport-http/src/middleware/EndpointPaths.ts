import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import * as FindMyWay from "effect/http/FindMyWay"
import * as HttpApi from "effect/http-api/HttpApi"
import * as Result from "effect/Result"

/** How the API's router matches paths: `layerHttpApp` serves with it, and the stream matcher below matches alike. */
export const apiRouterConfig: Partial<FindMyWay.RouterConfig> = {
  // The router's default (100) turned valid aliases of 101 to 253 characters into "no such endpoint": path
  // parameters are as long as the request line allows (Node's header limit, 16 KiB), and their schemas decide what
  // is valid (400).
  maxParamLength: 16 * 1024
}

interface Template {
  readonly method: string
  /** The path with each parameter as a group that may be empty (`/docker/stats/` is that endpoint, id empty). */
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const escaped = (segment: string) => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const streamKeys = new Set<string>(Object.values(StreamEndpoints).map((stream) => `${stream.group}.${stream.endpoint}`))

// Every endpoint of the API by method and path: what a request the router did not match was near to. And every
// endpoint in a router configured as the server's, its value whether it is a declared stream: it picks for a request
// the endpoint the server's router picks (same paths, same normalization of case, slashes and escapes).
const { templates, endpoints } = (() => {
  const found: Array<Template> = []
  const router = FindMyWay.make<boolean>(apiRouterConfig)
  HttpApi.reflect(GatehouseApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      router.on(
        endpoint.method,
        endpoint.path as FindMyWay.PathInput,
        streamKeys.has(`${group.identifier}.${endpoint.identifier}`)
      )
      const names = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
      const source = endpoint.path
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "([^/]*)" : escaped(segment)))
        .join("/")
      found.push({ method: endpoint.method, pattern: new RegExp(`^${source}$`), names })
    }
  })
  return { templates: found as ReadonlyArray<Template>, endpoints: router }
})()

/**
 * Whether the server routes `method` and `url` (the request target, query included) to an endpoint declared in
 * the stream table (`StreamEndpoints`): only a handshake to one of those is served as a WebSocket stream.
 */
export const isStreamEndpoint = (method: string, url: string): boolean => endpoints.find(method, url)?.handler === true

/**
 * Whether `path` has a percent-escape that does not decode (`%` without two hex digits after it, or escaped bytes
 * that are not UTF-8): the router cannot match such a path to any endpoint.
 */
export const hasMalformedEscape = (path: string): boolean =>
  path.includes("%") && Result.isFailure(Result.try(() => decodeURIComponent(path)))

/**
 * The name of the path parameter that is empty when `path` is an endpoint of the API with one parameter left
 * empty (SPEC §1: an empty id is bad input, 400, not an unknown endpoint); `undefined` for any other path.
 */
export const emptyPathParameter = (method: string, path: string): string | undefined => {
  for (const template of templates) {
    if (template.method !== method || template.names.length === 0) continue
    const match = template.pattern.exec(path)
    if (match === null) continue
    const empty = match.slice(1).indexOf("")
    if (empty >= 0) return template.names[empty]
  }
  return undefined
}

/**
 * The methods the API serves `path` with (every parameter filled in), for a 405 and its `Allow` header: empty when
 * no endpoint has this path. A `GET` endpoint answers `HEAD` too.
 */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const methods = new Set<string>()
  for (const template of templates) {
    const match = template.pattern.exec(path)
    if (match === null || match.slice(1).includes("")) continue
    methods.add(template.method)
    if (template.method === "GET") methods.add("HEAD")
  }
  return [...methods]
}
