// Writes src/ServedDescriptors.ts from the protos (needs protoc and Debian's libprotobuf-dev, as CI has):
// `npx tsx packages/transport-grpc/test/support/WriteServedDescriptors.ts`.
import * as fs from "node:fs"
import { compileServedDescriptors, renderServedDescriptors, servedDescriptorsModule } from "./ServedProtos.js"

fs.writeFileSync(servedDescriptorsModule, renderServedDescriptors(compileServedDescriptors()))
console.log(`wrote ${servedDescriptorsModule}`)
