import { InvalidArgument } from "@gatehouse-edge/contract/domain"

// What Docker accepts as a container name (and what an id or id prefix is made of), up to 255 characters.
const reference = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/

/** Why `ref` cannot name a container (SPEC §6: empty, bad characters), as the 400 the API answers. */
export const containerRefProblem = (ref: string): InvalidArgument | undefined =>
  reference.test(ref)
    ? undefined
    : new InvalidArgument({
        message:
          ref === ""
            ? "invalid container id: must not be empty"
            : "invalid container id: expected an id, an id prefix or a name ([a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 255 characters)",
        issues: [{ path: ["id"], message: "not a container id or name" }]
      })

/** A container as one engine lists it. */
export interface ListedContainer {
  readonly host: string
  readonly id: string
  readonly name: string
}

/**
 * The containers `ref` names, most specific first: an exact id or name wins outright; otherwise every container
 * whose id starts with `ref` (a hex prefix) matches, and more than one is ambiguous.
 */
export const matchContainers = (
  ref: string,
  containers: ReadonlyArray<ListedContainer>
): ReadonlyArray<ListedContainer> => {
  const exact = containers.filter((c) => c.id === ref || c.name === ref)
  if (exact.length > 0) return exact
  if (!/^[0-9a-f]+$/.test(ref)) return []
  return containers.filter((c) => c.id.startsWith(ref))
}
