import * as Context from "effect/Context"
import type { Principal } from "./Principal.js"

/** The authenticated caller of the request (or RPC) being served, provided by the transport's authentication adapter. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@gatehouse-edge/contract/CurrentPrincipal"
) {}
