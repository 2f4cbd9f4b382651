import * as Redacted from "effect/Redacted"

/** A secret kept in a file (`secret_file:`), read when the feature that needs it starts. */
export interface SecretFile {
  readonly _tag: "File"
  /** Absolute: relative to the config file's directory. */
  readonly path: string
  /** The config key that named the file (`hypervisor.clusters.0.secret_file`), for error messages. */
  readonly key: string
}

/**
 * Where a feature gets a secret from: written inline in the config (already `Redacted`), or a file read by
 * `readSecret` when the feature starts, so loading the config stays pure and a rotated file is picked up at the
 * next start without editing the config.
 */
export type SecretSource = Redacted.Redacted<string> | SecretFile

/** Whether a secret source is a file still to be read. */
export const isSecretFile = (source: SecretSource): source is SecretFile => !Redacted.isRedacted(source)
