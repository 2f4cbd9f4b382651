import { Effect } from "effect"

/** A cookie as a browser keeps it: by host (not port: cookies do not isolate ports), name and path. */
interface StoredCookie {
  readonly host: string
  readonly name: string
  readonly value: string
  readonly path: string
}

/** One response, read whole, with where it redirects to (resolved against the request URL). */
export interface AgentReply {
  readonly url: string
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
  /** `Location` as an absolute URL, for a redirect. */
  readonly location: string | undefined
  /** `Set-Cookie` lines of this response. */
  readonly setCookies: ReadonlyArray<string>
}

const defaultPath = (url: URL) => {
  const slash = url.pathname.lastIndexOf("/")
  return slash <= 0 ? "/" : url.pathname.slice(0, slash)
}

const pathMatches = (cookiePath: string, requestPath: string) =>
  requestPath === cookiePath ||
  (requestPath.startsWith(cookiePath) && (cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/"))

/**
 * A minimal browser for driving redirect flows with `fetch`: it keeps cookies (RFC 6265 host/path matching,
 * `Max-Age`/`Expires` removal; no `Secure`/`SameSite` logic, everything here is same-site loopback http) and
 * follows redirects one step at a time, so a test sees and can stop at every hop.
 */
export class CookieAgent {
  private cookies: Array<StoredCookie> = []

  /** The value of cookie `name` the agent would send to `url`. */
  cookie(name: string, url: string): string | undefined {
    return this.cookieHeader(new URL(url))
      .find(([n]) => n === name)
      ?.at(1)
  }

  private cookieHeader(url: URL): ReadonlyArray<readonly [string, string]> {
    return this.cookies
      .filter((c) => c.host === url.hostname && pathMatches(c.path, url.pathname))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => [c.name, c.value] as const)
  }

  private store(url: URL, line: string) {
    const [pair = "", ...attributes] = line.split(";").map((part) => part.trim())
    const eq = pair.indexOf("=")
    if (eq <= 0) return
    const name = pair.slice(0, eq)
    const value = pair.slice(eq + 1)
    let path = defaultPath(url)
    let expired = false
    for (const attribute of attributes) {
      const [key = "", val = ""] = attribute.split("=", 2)
      const lower = key.toLowerCase()
      if (lower === "path" && val.startsWith("/")) path = val
      if (lower === "max-age" && Number(val) <= 0) expired = true
      if (lower === "expires" && Date.parse(val) <= Date.now()) expired = true
    }
    this.cookies = this.cookies.filter((c) => !(c.host === url.hostname && c.name === name && c.path === path))
    if (!expired) this.cookies.push({ host: url.hostname, name, value, path })
  }

  /** One request, no redirect followed; cookies sent and stored. */
  request(
    url: string,
    init: {
      readonly method?: string
      readonly form?: URLSearchParams
      readonly body?: string
      readonly headers?: Record<string, string>
    } = {}
  ): Effect.Effect<AgentReply> {
    return Effect.promise(async () => {
      const target = new URL(url)
      const headers: Record<string, string> = { ...init.headers }
      const cookies = this.cookieHeader(target)
      if (cookies.length > 0 && headers.cookie === undefined) {
        headers.cookie = cookies.map(([n, v]) => `${n}=${v}`).join("; ")
      }
      if (init.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
      const response = await fetch(target, {
        method: init.method ?? (init.form === undefined && init.body === undefined ? "GET" : "POST"),
        headers,
        redirect: "manual",
        ...(init.form === undefined ? {} : { body: init.form.toString() }),
        ...(init.body === undefined ? {} : { body: init.body })
      })
      const setCookies = response.headers.getSetCookie()
      for (const line of setCookies) this.store(target, line)
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      const location = response.headers.get("location")
      return {
        url: target.href,
        status: response.status,
        headers: response.headers,
        text,
        json,
        location: location === null ? undefined : new URL(location, target).href,
        setCookies
      }
    })
  }

  /**
   * GETs `url` and follows redirects (at most 20) until a response is not a redirect, or the next hop satisfies
   * `stopBefore` (then that hop is not requested): the last response.
   */
  follow(url: string, stopBefore: (next: URL) => boolean = () => false): Effect.Effect<AgentReply> {
    const agent = this
    return Effect.gen(function* () {
      let reply = yield* agent.request(url)
      for (let hops = 0; hops < 20; hops++) {
        if (reply.location === undefined || reply.status < 300 || reply.status >= 400) return reply
        if (stopBefore(new URL(reply.location))) return reply
        reply = yield* agent.request(reply.location)
      }
      return yield* Effect.die(new Error(`more than 20 redirects from ${url}`))
    })
  }
}

/** The first `<form>` of an HTML page: its absolute action URL and its fields (hidden inputs, named buttons). */
export const formOf = (reply: AgentReply): { readonly action: string; readonly fields: URLSearchParams } => {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(reply.text)
  if (form === null) throw new Error(`no form on ${reply.url} (${reply.status}):\n${reply.text.slice(0, 2000)}`)
  const attribute = (tag: string, name: string) =>
    new RegExp(`\\b${name}="([^"]*)"`, "i")
      .exec(tag)?.[1]
      ?.replace(/&amp;/g, "&")
      .replace(/&quot;/g, '"')
  const action = new URL(attribute(form[1]!, "action") ?? reply.url, reply.url).href
  const fields = new URLSearchParams()
  for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(input[0], "name")
    if (name !== undefined && /type="hidden"/i.test(input[0])) fields.set(name, attribute(input[0], "value") ?? "")
  }
  return { action, fields }
}
