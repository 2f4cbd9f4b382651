/**
 * The rules about where Gatehouse listens and whom it calls over plain text, shared by the config rules (which
 * report them at the key, with its position) and the transports (which check them again for embedders that
 * build their options in code, without a config file).
 */

/** Whether a host name or IP literal is this machine's loopback: `localhost`, 127.0.0.0/8 or `::1` (with or without brackets). */
export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
