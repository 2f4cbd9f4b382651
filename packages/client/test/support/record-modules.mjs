// `node --import <this file>`: records the URL of every ES module the process loads (one per line) into the file
// named by GATEHOUSE_MODULE_LOG. CommonJS modules required from CommonJS code do not pass through these hooks;
// the importing script reads those from the require cache.
import { register } from "node:module"

register("./record-modules-hooks.mjs", import.meta.url, { data: { file: process.env.GATEHOUSE_MODULE_LOG } })
