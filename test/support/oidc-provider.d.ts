// oidc-provider ships no type declarations (DefinitelyTyped has them, as @types/oidc-provider): this is the part
// of its API test/support/OidcProvider.ts uses, as its source (lib/provider.js, lib/models) defines it.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  /** A pending interaction (sign-in or consent) of an authorization request. */
  export interface InteractionDetails {
    readonly uid: string
    readonly prompt: {
      readonly name: string
      readonly details: {
        readonly missingOIDCScope?: ReadonlyArray<string>
        readonly missingOIDCClaims?: ReadonlyArray<string>
        readonly missingResourceScopes?: Readonly<Record<string, ReadonlyArray<string>>>
      }
    }
    readonly params: Readonly<Record<string, unknown>>
    readonly session?: { readonly accountId: string }
    readonly grantId?: string
  }

  export interface Grant {
    addOIDCScope(scope: string): void
    addOIDCClaims(claims: ReadonlyArray<string>): void
    addResourceScope(indicator: string, scope: string): void
    save(): Promise<string>
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    readonly issuer: string
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
    readonly Grant: {
      new (properties: { readonly accountId: string; readonly clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
    /** The class of this provider's ID tokens; `expiresIn` gives a new token's lifetime in seconds. */
    readonly IdToken: { expiresIn: (...args: ReadonlyArray<unknown>) => number }
    on(event: string, listener: (...args: ReadonlyArray<any>) => void): this
  }

  export default Provider
}
