import { readFileSync } from 'node:fs'

/**
 * The server main thread's busy time during a measured period, split by what it was doing. A
 * sample goes to the first category, in this order, with a frame anywhere on its stack: so a
 * socket write under pg's query submission is database, one under Fastify's reply is HTTP, and
 * project code running inside a route handler falls to "HTTP and handlers".
 */
const CATEGORIES: Array<[string, RegExp]> = [
  // On the main thread WebAssembly is PGlite's (the BBS code runs in the pool's workers).
  [
    'database (Kysely build/compile, pg protocol and socket, PGlite)',
    /node_modules\/(kysely|pg|pg-protocol|pg-pool|pg-types|postgres-date|postgres-array|postgres-interval|@electric-sql)\/|^wasm:/,
  ],
  ['BBS pool hand-off, HPKE sealing', /src\/crypto\/(bbs\/|hpke-|sealed-)|node_modules\/hpke\//],
  [
    'signatures and JWTs (Ed25519, jose, JWS)',
    /node_modules\/jose\/|src\/crypto\/(ed25519|jws)|src\/modules\/did\/did-jws/,
  ],
  ['metrics (prom-client)', /node_modules\/prom-client\//],
  [
    'HTTP and handlers (Fastify, node:http, validation, serialisation)',
    /node_modules\/(fastify|find-my-way|@fastify|avvio|secure-json-parse|fast-json-stringify|ajv|fast-uri)\/|node:_http|node:net/,
  ],
]

interface Node {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}

export interface CategoryShare {
  category: string
  ms: number
  /** Of the main thread's busy time in the period. */
  share: number
}

export function categorizeProfile(file: string, fromUs: number, toUs: number): CategoryShare[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Node[]
    startTime: number
    samples: number[]
    timeDeltas: number[]
  }
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const byLeaf = new Map<number, string>()
  const categoryOf = (leaf: Node): string => {
    const known = byLeaf.get(leaf.id)
    if (known) return known
    const name = leaf.callFrame.functionName
    let category: string | undefined =
      name === '(garbage collector)'
        ? 'garbage collector'
        : name === '(program)'
          ? '(program: V8 and native, unattributed)'
          : undefined
    if (!category) {
      const urls: string[] = []
      for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id))
        urls.push(nodes.get(id)!.callFrame.url)
      category =
        CATEGORIES.find(([, re]) => urls.some((u) => re.test(u)))?.[0] ??
        'other (project code in callbacks, timers, node internals)'
    }
    byLeaf.set(leaf.id, category)
    return category
  }
  const totals = new Map<string, number>()
  let busyUs = 0
  let t = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    const weight = profile.timeDeltas[i + 1] ?? 0
    if (t < fromUs || t > toUs) continue
    const leaf = nodes.get(profile.samples[i]!)!
    if (leaf.callFrame.functionName === '(idle)') continue
    busyUs += weight
    const category = categoryOf(leaf)
    totals.set(category, (totals.get(category) ?? 0) + weight)
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .map(([category, us]) => ({ category, ms: Math.round(us / 1000), share: busyUs ? us / busyUs : 0 }))
}
