import * as Schema from "effect/Schema"

/** Load-balancer membership: routes with the same `link` form one pool. */
export const LoadBalance = Schema.Struct({
  link: Schema.String,
  mode: Schema.Literals(["round_robin", "least_conn", "ip_hash"]),
  weight: Schema.Int
}).annotate({ identifier: "LoadBalance" })
export type LoadBalance = typeof LoadBalance.Type

/** How a route shows on the homepage dashboard. */
export const Homepage = Schema.Struct({
  show: Schema.Boolean,
  name: Schema.optionalKey(Schema.String),
  icon: Schema.optionalKey(Schema.String),
  category: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Homepage" })
export type Homepage = typeof Homepage.Type

/** A request rule (`on` condition, `do` action); semantics arrive with the rules engine. */
export const Rule = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  on: Schema.String,
  do: Schema.String
}).annotate({ identifier: "Rule" })
export type Rule = typeof Rule.Type

/** Named middlewares and their options; semantics arrive with the middleware engine. */
export const Middlewares = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown)).annotate({
  identifier: "Middlewares"
})
export type Middlewares = typeof Middlewares.Type

/** Access log settings of a route. */
export const AccessLog = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  stdout: Schema.optionalKey(Schema.Boolean),
  format: Schema.optionalKey(Schema.Literals(["common", "combined", "json"])),
  buffer_size: Schema.optionalKey(Schema.Int),
  retention_days: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "AccessLog" })
export type AccessLog = typeof AccessLog.Type
