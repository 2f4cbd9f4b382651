import { type Guest, InvalidArgument } from "@gatehouse-edge/contract/domain"

const kindOf = (type: string) => (type === "qemu" ? "virtual machine" : type)

/**
 * Why `guest` cannot take a container's operations (an LXC action, a command run with `pct exec`), or `undefined`
 * for a container. A virtual machine is refused before anything reaches the node: `pct` would fail there, after a
 * stream had been promised.
 */
export const notAContainer = (guest: Pick<Guest, "vmid" | "type">): InvalidArgument | undefined =>
  guest.type === "lxc"
    ? undefined
    : new InvalidArgument({
        message: `guest ${guest.vmid} is a ${kindOf(guest.type)}, not an LXC container`,
        issues: [{ path: ["vmid"], message: "not an LXC container" }]
      })
