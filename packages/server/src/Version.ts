import type { VersionInfo } from "@gatehouse-edge/core/domain"

declare const __GATEHOUSE_VERSION__: string | undefined
declare const __GATEHOUSE_COMMIT__: string | undefined

/**
 * The version and commit of this build: stamped by the bundler for releases (see tsup.config.ts); running from
 * source reports the package version and `GATEHOUSE_COMMIT` or `dev`.
 */
export const versionInfo = (env: Readonly<Record<string, string | undefined>>): VersionInfo => ({
  version: typeof __GATEHOUSE_VERSION__ === "string" ? __GATEHOUSE_VERSION__ : "0.1.0",
  commit: typeof __GATEHOUSE_COMMIT__ === "string" ? __GATEHOUSE_COMMIT__ : (env.GATEHOUSE_COMMIT ?? "dev")
})
