import * as Result from "effect/Result"

/**
 * What docker-modem reads from the environment for every option its caller leaves out: the engine's address
 * (`DOCKER_HOST`, whose host then wins over a `socketPath` given), TLS (`DOCKER_TLS_VERIFY`, and `DOCKER_CERT_PATH`,
 * whose `ca.pem`, `cert.pem` and `key.pem` it reads on the spot, throwing when they are missing), a timeout and a
 * path prefix. Gatehouse's engines are what `docker.hosts` says and nothing else: a `DOCKER_CERT_PATH` left in the
 * server's environment for the docker CLI must not make an `https:` engine trust another CA or present a client
 * certificate, nor a `DOCKER_HOST` send a `unix:` engine's calls elsewhere.
 */
const dockerVariables = [
  "DOCKER_HOST",
  "DOCKER_TLS_VERIFY",
  "DOCKER_CERT_PATH",
  "DOCKER_CLIENT_TIMEOUT",
  "DOCKER_PATH_PREFIX"
] as const

/**
 * Runs `make` (a dockerode client's construction, which is where docker-modem reads them) with those variables out of
 * `process.env`, and puts them back before returning. Synchronous, so nothing else runs while they are out.
 */
export const withoutDockerEnvironment = <A>(make: () => A): A => {
  const saved = dockerVariables.map((name) => [name, process.env[name]] as const)
  for (const [name] of saved) delete process.env[name]
  const made = Result.try(make)
  for (const [name, value] of saved) if (value !== undefined) process.env[name] = value
  if (Result.isFailure(made)) throw made.failure
  return made.success
}
