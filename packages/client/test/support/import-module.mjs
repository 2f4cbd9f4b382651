// Imports the module named on the command line, then prints every CommonJS module in the require cache as JSON.
import { createRequire } from "node:module"

const specifier = process.argv[2]
if (specifier === undefined) throw new Error("usage: import-module.mjs <specifier>")
await import(specifier)
const require = createRequire(import.meta.url)
process.stdout.write(JSON.stringify(Object.keys(require.cache)))
