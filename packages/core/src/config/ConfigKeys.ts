import * as SchemaAST from "effect/SchemaAST"
import { ConfigFile } from "./ConfigFile.js"

// What the schema says of a key of `gatehouse.yml`, as the file writes it (encoded): `max_body` takes a string or
// a number there, a listen address a string (a `{host, port}` only once decoded).

type Path = ReadonlyArray<string | number>

const encoded = SchemaAST.toEncoded(ConfigFile.ast)

// The schema of the value at `path`, or `undefined` where the file has no such key.
const schemaAt = (path: Path): SchemaAST.AST | undefined => {
  let ast: SchemaAST.AST | undefined = encoded
  for (const segment of path) {
    if (ast === undefined) return undefined
    if (SchemaAST.isObjects(ast)) {
      const property: SchemaAST.PropertySignature | undefined = ast.propertySignatures.find((p) => p.name === segment)
      ast = property?.type ?? (typeof segment === "string" ? ast.indexSignatures[0]?.type : undefined)
    } else if (SchemaAST.isArrays(ast) && typeof segment === "number") {
      ast = ast.elements[segment] ?? ast.rest[0]
    } else return undefined
  }
  return ast
}

/**
 * Whether the key at `path` takes text only (a path, a secret, an address, a URL): a value put there from the
 * environment is taken as it is, never read as YAML, so a secret `0123` or a directory `2024` is not turned into a
 * number. A key the file does not have counts as text: its value stays as written.
 */
export const takesTextOnly = (path: Path): boolean => {
  const ast = schemaAt(path)
  return ast === undefined || SchemaAST.isString(ast)
}

/** Whether the key at `path` is a section of the file (a mapping of keys): `http`, `acme.http01`; the root too. */
export const isSection = (path: Path): boolean => {
  const ast = schemaAt(path)
  return ast !== undefined && SchemaAST.isObjects(ast)
}
