import { Schema } from "effect"

/** A JSON text frame for a value of `schema` (encoded first, so frames match the HTTP bodies exactly). */
export const jsonFrame =
  <S extends Schema.Top & { readonly EncodingServices: never }>(schema: S) =>
  (value: S["Type"]): string =>
    JSON.stringify(Schema.encodeSync(schema as unknown as Schema.Codec<S["Type"], S["Encoded"]>)(value))
