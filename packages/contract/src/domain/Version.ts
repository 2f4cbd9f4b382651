import * as Schema from "effect/Schema"

/** The running server's version and the commit it was built from. */
export const VersionInfo = Schema.Struct({ version: Schema.String, commit: Schema.String }).annotate({
  identifier: "VersionInfo"
})
export type VersionInfo = typeof VersionInfo.Type
