// vitest 5's reporter calls Map.groupBy / Object.groupBy, which Node 20 lacks: without these a failing
// test crashes the reporter and prints no diff. Node >= 21 has both, so this is a no-op there.
type GroupBy = <K, V>(items: Iterable<V>, key: (value: V, index: number) => K) => unknown

const groupInto = <K, V>(items: Iterable<V>, key: (value: V, index: number) => K, add: (k: K, v: V) => void) => {
  let index = 0
  for (const item of items) add(key(item, index++), item)
}

const mapCtor = Map as unknown as { groupBy?: GroupBy }
if (typeof mapCtor.groupBy !== "function") {
  mapCtor.groupBy = (items, key) => {
    const groups = new Map<unknown, Array<unknown>>()
    groupInto(items, key, (k, v) => {
      const group = groups.get(k)
      if (group) group.push(v)
      else groups.set(k, [v])
    })
    return groups
  }
}

const objectCtor = Object as unknown as { groupBy?: GroupBy }
if (typeof objectCtor.groupBy !== "function") {
  objectCtor.groupBy = (items, key) => {
    const groups: Record<PropertyKey, Array<unknown>> = Object.create(null)
    groupInto(items, key, (k, v) => {
      const group = (groups[k as PropertyKey] ??= [])
      group.push(v)
    })
    return groups
  }
}

export {}
