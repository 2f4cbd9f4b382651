import type { Unauthenticated } from "@gatehouse-edge/core/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * What ends a WebSocket stream when the credential its upgrade was authenticated with stops being valid (revoked,
 * expired, signed out): the core's `Authentication.validUntilRevoked`, provided by the authentication adapter on
 * upgrades only. A stream outside authorization proved no credential, so by default nothing ends it.
 */
export class StreamCredential extends Context.Reference<Effect.Effect<never, Unauthenticated>>(
  "@gatehouse-edge/transport-http/StreamCredential",
  { defaultValue: () => Effect.never }
) {}
