#!/usr/bin/env node
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { gatehouseCli } from "./Cli.js"
import { versionInfo } from "./Version.js"

// Deep imports only: the @effect/platform-node barrel loads undici 8, which crashes on Node 20.
gatehouseCli.pipe(
  Command.run({ version: versionInfo(process.env).version }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
