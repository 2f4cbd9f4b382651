import { RoutePort } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

const digits = /^\d+$/

const portNumber = (text: string, role: string): number | string => {
  if (!digits.test(text)) return `${role} port \`${text}\` is not a number`
  const port = Number(text)
  return port <= 65535 ? port : `${role} port ${port} is out of range 0–65535`
}

/**
 * Parses a route's `port`: an integer (the target port) or a string `"[listening:]target"`; `":1234"` means
 * listening 0, target 1234. Returns the ports, or a message saying what is wrong.
 */
export const parsePortSpec = (input: string | number): RoutePort | string => {
  if (typeof input === "number") {
    if (!Number.isInteger(input)) return `port ${input} is not a whole number`
    return input >= 0 && input <= 65535 ? { listening: 0, target: input } : `port ${input} is out of range 0–65535`
  }
  const text = input.trim()
  if (text === "") return "port must not be empty"
  const parts = text.split(":")
  if (parts.length > 2) return `\`${text}\` is not a port: expected "target" or "listening:target"`
  const [first, second] = parts as [string, string | undefined]
  if (second === undefined) {
    const target = portNumber(first, "target")
    return typeof target === "string" ? target : { listening: 0, target }
  }
  if (second === "") return `\`${text}\` has no target port after \`:\``
  const listening = first === "" ? 0 : portNumber(first, "listening")
  if (typeof listening === "string") return listening
  const target = portNumber(second, "target")
  return typeof target === "string" ? target : { listening, target }
}

/** Schema of a route's `port` as written (`8080`, `"8080"`, `"2222:22"`, `":53"`), decoded to `{listening, target}`. */
export const PortInput = Schema.Union([Schema.String, Schema.Number])
  .annotate({ expected: 'a port such as 8080, or "listening:target" such as "2222:22"' })
  .pipe(
    Schema.decodeTo(
      RoutePort,
      SchemaTransformation.transformEffect<RoutePort, string | number>({
        decode: (input, options) => {
          const parsed = parsePortSpec(input)
          return typeof parsed === "string"
            ? Effect.fail(new SchemaIssue.InvalidValue({ message: parsed }, input, options))
            : Effect.succeed(parsed)
        },
        encode: (port) => Effect.succeed(port.listening === 0 ? port.target : `${port.listening}:${port.target}`)
      })
    )
  )
