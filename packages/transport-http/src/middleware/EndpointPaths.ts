import { GatehouseApi } from "@gatehouse-edge/contract/api"
import * as HttpApi from "effect/http-api/HttpApi"

interface Template {
  readonly method: string
  /** The path with each parameter as a group that may be empty (`/docker/stats/` is that endpoint, id empty). */
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const escaped = (segment: string) => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// Every endpoint of the API by method and path: what a request the router did not match was near to.
const templates: ReadonlyArray<Template> = (() => {
  const found: Array<Template> = []
  HttpApi.reflect(GatehouseApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const names = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
      const source = endpoint.path
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "([^/]*)" : escaped(segment)))
        .join("/")
      found.push({ method: endpoint.method, pattern: new RegExp(`^${source}$`), names })
    }
  })
  return found
})()

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
