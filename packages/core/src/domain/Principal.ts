/** Who made a request, as established by authentication. */
export interface Principal {
  /** A stable name for logs and audit, e.g. `api-key:admin`. */
  readonly name: string
  /** How the caller authenticated. */
  readonly method: "api_key"
}
