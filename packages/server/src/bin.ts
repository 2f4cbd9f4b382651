#!/usr/bin/env node
// The `gatehouse` command. Its program is loaded by a dynamic import, after NodeHttpFacade: Node builds the facade of
// every built-in module a static import graph names while it loads that graph, before any of the graph's code runs.
// Then Node's compile cache is turned on, for every module the program loads.
import "./NodeHttpFacade.js"
import "./CompileCache.js"

await import("./Main.js")
