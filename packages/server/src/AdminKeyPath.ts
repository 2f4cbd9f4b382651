import * as path from "node:path"

/**
 * The admin API key file inside the data directory: written by the server (`AdminKey.ts`), read by the CLI's client
 * commands, which import this module alone so as not to load the key store.
 */
export const adminKeyPath = (dataDir: string) => path.join(dataDir, "admin.key")
