import * as HttpApi from "effect/http-api/HttpApi"
import { GatehouseApi } from "../api/GatehouseApi.js"

interface Template {
  readonly method: string
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

// Every endpoint path with a parameter, as a pattern whose parameters may be empty: `/docker/stats/` is that
// endpoint with an empty id, which the router cannot match (a parameter needs a character).
const templates: ReadonlyArray<Template> = (() => {
  const found: Array<Template> = []
  HttpApi.reflect(GatehouseApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const names = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
      if (names.length === 0) return
      const source = endpoint.path
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "([^/]*)" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
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
    if (template.method !== method) continue
    const match = template.pattern.exec(path)
    if (match === null) continue
    const empty = match.slice(1).indexOf("")
    if (empty >= 0) return template.names[empty]
  }
  return undefined
}
