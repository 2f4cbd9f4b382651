import { isIP } from "node:net"
import { isLoopbackHost } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

/** A listen address `host:port` (`[::1]:8888` for IPv6), port 0–65535 (0 = any free port). */
export interface ListenAddress {
  readonly host: string
  readonly port: number
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

/** Parses `host:port`; `undefined` when it is not one. An empty host means every interface. */
export const parseListenAddress = (text: string): ListenAddress | undefined => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim())
  if (match === null) return undefined
  const host = match[1] ?? match[2] ?? ""
  const port = Number(match[3])
  if (port > 65535) return undefined
  if (match[1] !== undefined && isIP(host) !== 6) return undefined
  if (match[1] === undefined && host !== "" && isIP(host) !== 4 && !HOSTNAME.test(host)) return undefined
  return { host: host === "" ? "0.0.0.0" : host, port }
}

/** Formats a listen address back to `host:port`. */
export const formatListenAddress = (address: ListenAddress): string =>
  isIP(address.host) === 6 ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`

const fallible = <T, E>(parse: (input: E) => T | undefined, expected: string, format: (value: T) => E) =>
  SchemaTransformation.transformEffect<T, E>({
    decode: (input, options) => {
      const value = parse(input)
      return value === undefined
        ? Effect.fail(
            new SchemaIssue.InvalidValue(
              { message: `expected ${expected}, got ${JSON.stringify(input)}` },
              input,
              options
            )
          )
        : Effect.succeed(value)
    },
    encode: (value) => Effect.succeed(format(value))
  })

/** `host:port` in a config file, decoded to a {@link ListenAddress}. */
export const ListenAddressValue = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Struct({ host: Schema.String, port: Schema.Int }),
    fallible(parseListenAddress, "host:port, e.g. 127.0.0.1:8888 or [::1]:8888", formatListenAddress)
  )
)

const UNITS: Record<string, number> = {
  b: 1,
  k: 1000,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3
}

/** Parses a size such as `1MiB`, `512KiB`, `10MB` or a plain number of bytes. */
export const parseByteSize = (input: string | number): number | undefined => {
  if (typeof input === "number") return Number.isSafeInteger(input) && input >= 0 ? input : undefined
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(input)
  if (match === null) return undefined
  const unit = UNITS[(match[2] ?? "").toLowerCase() || "b"]
  if (unit === undefined) return undefined
  const bytes = Math.floor(Number(match[1]) * unit)
  return Number.isSafeInteger(bytes) ? bytes : undefined
}

/** A size in bytes: `1MiB`, `512KiB`, `10MB`, or an integer number of bytes. */
export const ByteSizeValue = Schema.Union([Schema.String, Schema.Int]).pipe(
  Schema.decodeTo(
    Schema.Int,
    fallible<number, string | number>(parseByteSize, "a size such as 1MiB, 512KiB or a number of bytes", (n) => n)
  )
)

const isPrefix = (text: string, family: 4 | 6): boolean => {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text)
  return match !== null && isIP(match[1]!) === family && Number(match[2]) <= (family === 4 ? 32 : 128)
}

/** An IP prefix in CIDR notation of one family (`100.64.0.0/10`, `fd7a:115c:a1e0::/48`). */
export const PrefixValue = (family: 4 | 6) =>
  Schema.String.check(
    Schema.makeFilter((text: string) =>
      isPrefix(text, family)
        ? undefined
        : `expected an IPv${family} prefix such as ${family === 4 ? "100.64.0.0/10" : "fd7a:115c:a1e0::/48"}, got ${JSON.stringify(text)}`
    )
  )

/** An address or a CIDR prefix of either family (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`). */
export const AddressOrPrefixValue = Schema.String.check(
  Schema.makeFilter((text: string) =>
    isIP(text) !== 0 || isPrefix(text, 4) || isPrefix(text, 6)
      ? undefined
      : `expected an IP address or a prefix such as 10.0.0.0/8, got ${JSON.stringify(text)}`
  )
)

/**
 * A host name a client may use to reach the server (`Host` header, the host of `Origin`): a DNS name or an IP
 * address, IPv6 without brackets. Core's `hostProblem` is the same check for route targets.
 */
export const HostNameValue = Schema.String.check(
  Schema.makeFilter((text: string) =>
    isIP(text) !== 0 || HOSTNAME.test(text)
      ? undefined
      : `expected a host name or IP address (IPv6 without brackets), got ${JSON.stringify(text)}`
  )
)

const urlProblem = (text: string, expected: string, loopbackHttp: boolean): string | undefined => {
  const url = URL.canParse(text) ? new URL(text) : undefined
  const allowed =
    url !== undefined &&
    url.hostname !== "" &&
    (url.protocol === "https:" || (url.protocol === "http:" && loopbackHttp && isLoopbackHost(url.hostname)))
  return allowed ? undefined : `expected ${expected}, got ${JSON.stringify(text)}`
}

/**
 * The URL of a server Gatehouse calls (an OpenID provider, an ACME directory): a URL that parses, `https://`, or
 * with `loopbackHttp` also `http://` to localhost, 127.0.0.0/8 or `[::1]` (a provider for development and tests).
 */
export const HttpsUrlValue = (options: { readonly expected: string; readonly loopbackHttp?: boolean }) =>
  Schema.String.check(
    Schema.makeFilter((text: string) => urlProblem(text, options.expected, options.loopbackHttp === true))
  )

/**
 * A URL with one of `schemes` (as written before `://`) that also parses: `https://pve:99999` or `tcp://[zz]:1`
 * match a pattern, but the client built from them would throw at start.
 */
export const UrlValue = (options: { readonly schemes: ReadonlyArray<string>; readonly expected: string }) =>
  Schema.String.check(
    Schema.makeFilter((text: string) => {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase()
      return scheme !== undefined && options.schemes.includes(scheme) && URL.canParse(text)
        ? undefined
        : `expected ${options.expected}, got ${JSON.stringify(text)}`
    })
  )

/** A non-empty path; relative paths are relative to the config file's directory. */
export const PathValue = Schema.String.check(Schema.isMinLength(1))

/**
 * A secret written in the config file (`secret`, `password`, `client_secret`, ...), decoded to `Redacted` so it
 * prints as `<redacted>` wherever the config goes. Checks on it must not put the value in their message: the
 * issue reporter already shows a secret's value as `<redacted>`, a custom message would bypass that.
 */
export const SecretValue = <S extends Schema.Codec<string, string>>(value: S) =>
  Schema.RedactedFromValue(value, { disallowEncode: true })
