import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import protobuf from "protobufjs"
// Imported for its effect: it adds Root.fromDescriptor.
import "protobufjs/ext/descriptor/index.js"
import type { IDescriptorProto, IFieldDescriptorProto } from "protobufjs/ext/descriptor/index.js"
import type { ReceivedFile } from "./ReflectionClient.js"

const typesDeclaredIn = (file: ReceivedFile["proto"]): Array<string> => {
  const inMessage = (scope: string, type: IDescriptorProto): Array<string> => [
    `${scope}.${type.name}`,
    ...(type.enumType ?? []).map((nested) => `${scope}.${type.name}.${nested.name}`),
    ...(type.nestedType ?? []).flatMap((nested) => inMessage(`${scope}.${type.name}`, nested))
  ]
  const scope = file.package ? `.${file.package}` : ""
  return [
    ...(file.enumType ?? []).map((type) => `${scope}.${type.name}`),
    ...(file.messageType ?? []).flatMap((type) => inMessage(scope, type))
  ]
}

/** A type a file names, and the scope it is named in (a name without a leading dot is relative to it). */
interface Reference {
  readonly name: string
  readonly scope: string
}

const typesReferencedBy = (file: ReceivedFile["proto"]): Array<Reference> => {
  const ofField = (scope: string) => (field: IFieldDescriptorProto) =>
    [field.typeName ?? "", field.extendee ?? ""].filter((name) => name).map((name) => ({ name, scope }))
  const inMessage =
    (scope: string) =>
    (type: IDescriptorProto): Array<Reference> => {
      const name = `${scope}.${type.name}`
      return [
        ...[...(type.field ?? []), ...(type.extension ?? [])].flatMap(ofField(name)),
        ...(type.nestedType ?? []).flatMap(inMessage(name))
      ]
    }
  const scope = file.package ? `.${file.package}` : ""
  return [
    ...(file.messageType ?? []).flatMap(inMessage(scope)),
    ...(file.extension ?? []).flatMap(ofField(scope)),
    ...(file.service ?? []).flatMap((service) =>
      (service.method ?? []).flatMap((method) =>
        [method.inputType ?? "", method.outputType ?? ""].map((name) => ({ name, scope: `${scope}.${service.name}` }))
      )
    )
  ]
}

/** Where a reference may point: itself if fully qualified, else from the innermost enclosing scope outwards. */
const candidatesOf = ({ name, scope }: Reference): Array<string> => {
  if (name.startsWith(".")) return [name]
  const parts = scope.split(".").filter((part) => part)
  return parts.map((_, i) => `.${[...parts.slice(0, parts.length - i), name].join(".")}`).concat(`.${name}`)
}

/**
 * The rule a linker applies to each file (protoc: `"google.protobuf.Timestamp" is not defined`): every type it names
 * is declared in the file itself or in a file it imports. What breaks it, one line per reference.
 */
export const unresolvedReferences = (files: ReadonlyMap<string, ReceivedFile>): Array<string> =>
  [...files.values()].flatMap(({ proto }) => {
    const visible = new Set(
      [proto, ...proto.dependency.flatMap((name) => files.get(name)?.proto ?? [])].flatMap(typesDeclaredIn)
    )
    return typesReferencedBy(proto)
      .filter((reference) => !candidatesOf(reference).some((candidate) => visible.has(candidate)))
      .map(({ name }) => `${proto.name}: ${name} is declared neither in it nor in a file it imports`)
  })

/** The files linked by protobufjs (its `Root.fromDescriptor`, which protobufjs/ext/descriptor adds), resolved. */
export const protobufjsRootOf = (files: Iterable<ReceivedFile>): protobuf.Root => {
  const fromDescriptor = (protobuf.Root as unknown as { fromDescriptor: (set: Uint8Array) => protobuf.Root })
    .fromDescriptor
  const root = fromDescriptor(descriptorSetOf(files))
  root.resolveAll()
  return root
}

/** The files as one FileDescriptorSet (`repeated FileDescriptorProto file = 1`), each as received. */
export const descriptorSetOf = (files: Iterable<ReceivedFile>): Uint8Array => {
  const writer = protobuf.Writer.create()
  for (const file of files) writer.uint32((1 << 3) | 2).bytes(file.bytes)
  return writer.finish()
}

/** protoc over a descriptor set (`--descriptor_set_in`, which links every file strictly): status, output, errors. */
export const protocOverSet = (files: Iterable<ReceivedFile>, args: ReadonlyArray<string>, input?: Uint8Array) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-reflected-"))
  try {
    const set = path.join(dir, "reflected.pb")
    fs.writeFileSync(set, descriptorSetOf(files))
    const result = spawnSync("protoc", [`--descriptor_set_in=${set}`, ...args], {
      input: input ?? "",
      encoding: "buffer"
    })
    return { status: result.status, stdout: result.stdout.toString("utf8"), stderr: result.stderr.toString("utf8") }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
