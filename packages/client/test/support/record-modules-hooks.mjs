// Module loader hooks (they run on the loader thread): append each loaded URL to the log file.
import { appendFileSync } from "node:fs"

let file

export function initialize(data) {
  file = data.file
}

export async function load(url, context, nextLoad) {
  if (file !== undefined) appendFileSync(file, `${url}\n`)
  return nextLoad(url, context)
}
