import * as Context from "effect/Context"

/**
 * Whether the server's log goes to a person at a terminal (pretty lines on a TTY) rather than to a file, journald,
 * `docker logs` or a log shipper: only then may a secret be shown in it once (the admin key on first start).
 * Unknown means no: a server composed without `layerLogging` never prints a secret.
 */
export class LogAtTerminal extends Context.Reference<boolean>("@gatehouse-edge/server/LogAtTerminal", {
  defaultValue: () => false
}) {}
