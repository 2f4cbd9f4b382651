import * as Command from "effect/cli/Command"
import { apiKeyCommand } from "./commands/ApiKeys.js"
import { authCommand } from "./commands/Auth.js"
import { certCommand } from "./commands/Cert.js"
import { dockerCommand } from "./commands/Docker.js"
import { eventsCommand } from "./commands/Events.js"
import { filesCommand } from "./commands/Files.js"
import { hashPasswordCommand } from "./commands/HashPassword.js"
import { healthCommand } from "./commands/Health.js"
import { hypervisorCommand } from "./commands/Hypervisor.js"
import { openApiCommand } from "./commands/OpenApi.js"
import { routesCommand } from "./commands/Routes.js"
import { serveCommand } from "./commands/Serve.js"
import { sessionsCommand } from "./commands/Sessions.js"
import { storeCommand } from "./commands/Store.js"
import { uptimeCommand } from "./commands/Uptime.js"
import { nodesCommand, usersCommand } from "./commands/Users.js"
import { validateCommand } from "./commands/Validate.js"
import { whoAmICommand } from "./commands/WhoAmI.js"

/** The `gatehouse` command line. */
export const gatehouseCli = Command.make("gatehouse").pipe(
  Command.withDescription("Gatehouse: an open management plane for self-hosted edges"),
  Command.withSubcommands([
    serveCommand,
    validateCommand,
    openApiCommand,
    storeCommand,
    routesCommand,
    healthCommand,
    eventsCommand,
    filesCommand,
    whoAmICommand,
    authCommand,
    usersCommand,
    nodesCommand,
    hypervisorCommand,
    dockerCommand,
    hashPasswordCommand,
    apiKeyCommand,
    sessionsCommand,
    certCommand,
    uptimeCommand
  ])
)
