import descriptor, {
  type IDescriptorProto,
  type IEnumDescriptorProto,
  type IFieldDescriptorProto,
  type IFileDescriptorProto
} from "protobufjs/ext/descriptor/index.js"

/** A file of a descriptor set: the bytes protoc wrote (served as they are, never re-encoded) and what they say. */
export interface DescribedFile {
  readonly name: string
  /** The files it imports, by name. */
  readonly dependencies: ReadonlyArray<string>
  readonly bytes: Uint8Array
  readonly proto: IFileDescriptorProto
}

/** What server reflection looks up in a descriptor set; names are fully qualified, without a leading dot. */
export interface DescriptorIndex {
  /** Every service the files declare, in file order. */
  readonly services: ReadonlyArray<string>
  readonly fileByName: (name: string) => DescribedFile | undefined
  /** The file declaring a message, field, oneof, enum, enum value, service, method or extension. */
  readonly fileContainingSymbol: (symbol: string) => DescribedFile | undefined
  readonly fileContainingExtension: (extendee: string, number: number) => DescribedFile | undefined
  /** The numbers of a message's extensions (none if no file extends it); undefined if no message has that name. */
  readonly extensionNumbersOf: (message: string) => ReadonlyArray<number> | undefined
}

/** Indexes a set of encoded FileDescriptorProtos by file name, by symbol and by extended message. */
export const makeDescriptorIndex = (encoded: ReadonlyArray<Uint8Array>): DescriptorIndex => {
  const files = new Map<string, DescribedFile>()
  const symbols = new Map<string, DescribedFile>()
  const messages = new Set<string>()
  const extensions = new Map<string, Map<number, DescribedFile>>()
  const services: Array<string> = []

  for (const bytes of encoded) {
    const proto = descriptor.FileDescriptorProto.decode(bytes) as IFileDescriptorProto
    const file: DescribedFile = { name: proto.name ?? "", dependencies: proto.dependency ?? [], bytes, proto }
    files.set(file.name, file)
    const declare = (symbol: string) => symbols.set(symbol, file)
    const declareExtension = (scope: string, field: IFieldDescriptorProto) => {
      declare(`${scope}${field.name}`)
      // protoc writes the extendee fully qualified, with a leading dot.
      const extendee = (field.extendee ?? "").replace(/^\./, "")
      extensions.set(extendee, (extensions.get(extendee) ?? new Map()).set(field.number ?? 0, file))
    }
    // An enum's values are named in the scope of the enum, not inside it (as in C++).
    const declareEnum = (scope: string, type: IEnumDescriptorProto) => {
      declare(`${scope}${type.name}`)
      for (const value of type.value ?? []) declare(`${scope}${value.name}`)
    }
    const declareMessage = (scope: string, type: IDescriptorProto) => {
      const name = `${scope}${type.name}`
      declare(name)
      messages.add(name)
      for (const field of type.field ?? []) declare(`${name}.${field.name}`)
      for (const oneof of type.oneofDecl ?? []) declare(`${name}.${oneof.name}`)
      for (const extension of type.extension ?? []) declareExtension(`${name}.`, extension)
      for (const nested of type.nestedType ?? []) declareMessage(`${name}.`, nested)
      for (const nested of type.enumType ?? []) declareEnum(`${name}.`, nested)
    }
    const scope = proto.package ? `${proto.package}.` : ""
    for (const type of proto.messageType ?? []) declareMessage(scope, type)
    for (const type of proto.enumType ?? []) declareEnum(scope, type)
    for (const extension of proto.extension ?? []) declareExtension(scope, extension)
    for (const service of proto.service ?? []) {
      const name = `${scope}${service.name}`
      declare(name)
      services.push(name)
      for (const method of service.method ?? []) declare(`${name}.${method.name}`)
    }
  }

  return {
    services,
    fileByName: (name) => files.get(name),
    fileContainingSymbol: (symbol) => symbols.get(symbol),
    fileContainingExtension: (extendee, number) => extensions.get(extendee)?.get(number),
    extensionNumbersOf: (message) =>
      messages.has(message) ? [...(extensions.get(message)?.keys() ?? [])].sort((a, b) => a - b) : undefined
  }
}
