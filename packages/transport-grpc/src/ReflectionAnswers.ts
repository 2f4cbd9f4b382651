import { status } from "@grpc/grpc-js"
import type { DescribedFile, DescriptorIndex } from "./DescriptorIndex.js"

/** A `ServerReflectionRequest` (v1 and v1alpha alike), as proto-loader decodes it (`keepCase`, `oneofs`). */
export interface ReflectionRequest {
  readonly host?: string
  readonly message_request?: string
  readonly file_by_filename?: string
  readonly file_containing_symbol?: string
  readonly file_containing_extension?: { readonly containing_type?: string; readonly extension_number?: number }
  readonly all_extension_numbers_of_type?: string
  readonly list_services?: string
}

/** A `ServerReflectionResponse`: the request echoed, and one answer. */
export interface ReflectionResponse {
  readonly valid_host: string
  readonly original_request: ReflectionRequest
  readonly file_descriptor_response?: { readonly file_descriptor_proto: ReadonlyArray<Uint8Array> }
  readonly all_extension_numbers_response?: {
    readonly base_type_name: string
    readonly extension_number: ReadonlyArray<number>
  }
  readonly list_services_response?: { readonly service: ReadonlyArray<{ readonly name: string }> }
  readonly error_response?: { readonly error_code: number; readonly error_message: string }
}

type Answer = Omit<ReflectionResponse, "valid_host" | "original_request">

const notFound = (message: string): Answer => ({
  error_response: { error_code: status.NOT_FOUND, error_message: message }
})

/**
 * Answers the requests of one `ServerReflectionInfo` stream. A file comes with the files it imports, directly or not,
 * that this stream has not sent yet (as grpc-go's reflection does): a client such as grpcurl keeps what it received
 * and asks `file_by_filename` for any import it lacks, so every answer can be linked.
 */
export const reflectionStream = (index: DescriptorIndex): ((request: ReflectionRequest) => ReflectionResponse) => {
  const sent = new Set<string>()
  const withImports = (file: DescribedFile): Answer => {
    const answer: Array<Uint8Array> = [file.bytes]
    sent.add(file.name)
    const seen = new Set([file.name])
    const queue = [...file.dependencies]
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const dependency = index.fileByName(name)
      if (seen.has(name) || dependency === undefined) continue
      seen.add(name)
      if (!sent.has(name)) answer.push(dependency.bytes)
      sent.add(name)
      queue.push(...dependency.dependencies)
    }
    return { file_descriptor_response: { file_descriptor_proto: answer } }
  }
  const answer = (request: ReflectionRequest): Answer => {
    switch (request.message_request) {
      case "list_services":
        return { list_services_response: { service: index.services.map((name) => ({ name })) } }
      case "file_by_filename": {
        const file = index.fileByName(request.file_by_filename ?? "")
        return file ? withImports(file) : notFound(`file not found: ${request.file_by_filename}`)
      }
      case "file_containing_symbol": {
        const file = index.fileContainingSymbol(request.file_containing_symbol ?? "")
        return file ? withImports(file) : notFound(`symbol not found: ${request.file_containing_symbol}`)
      }
      case "file_containing_extension": {
        const { containing_type = "", extension_number = 0 } = request.file_containing_extension ?? {}
        const file = index.fileContainingExtension(containing_type, extension_number)
        return file ? withImports(file) : notFound(`extension not found: ${containing_type} ${extension_number}`)
      }
      case "all_extension_numbers_of_type": {
        const type = request.all_extension_numbers_of_type ?? ""
        const numbers = index.extensionNumbersOf(type)
        return numbers
          ? { all_extension_numbers_response: { base_type_name: type, extension_number: numbers } }
          : notFound(`message type not found: ${type}`)
      }
      default:
        return {
          error_response: { error_code: status.UNIMPLEMENTED, error_message: "no reflection request in the message" }
        }
    }
  }
  return (request) => ({ valid_host: request.host ?? "", original_request: request, ...answer(request) })
}
