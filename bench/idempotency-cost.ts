/**
 * What an Idempotency-Key costs (`npm run bench:idempotency`, docs/idempotency.md): the same
 * creating POSTs sent with a fresh key each and without one, in process (`app.inject`), alternating
 * rounds so both see the same machine. BENCH_ENGINE=postgres (BENCH_DATABASE_URL) or pglite
 * (default). Medians of ROUNDS rounds of SECONDS each, CONNECTIONS in flight; the ratio is keyed
 * over unkeyed. Figures go to bench/README.md "Idempotency-Key (issue 26)".
 */
import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { closedLoop, type PhaseResult } from './lib/closed-loop.js'
import { median } from './lib/stats.js'

const ENGINE = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'pglite'
process.env.TEST_DB_ENGINE = ENGINE
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SECONDS = Number(process.env.SECONDS ?? 4)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16)

const { createTestApp } = await import('../test/helpers/test-app.js')
const { IssuerActor, JWT_DEGREE_SCHEMA } = await import('../test/helpers/issuer-setup.js')
const { DidClient, bearer } = await import('../test/helpers/did-client.js')

const t = await createTestApp({ env: { JWT_TTL_SECONDS: String(30 * 86400) } })
const issuer = await new IssuerActor().setUp(t.app, 'Bench University')
const schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
const holder = new DidClient()
const holderToken = await holder.login(t.app)
const verifier = new DidClient()
const verifierToken = await verifier.login(t.app)
await t.app.inject({
  method: 'POST',
  url: '/api/verifier',
  headers: bearer(verifierToken),
  payload: { name: 'Bench verifier' },
})

interface Route {
  name: string
  url: string
  token: string
  body: (n: number) => object
}
const routes: Route[] = [
  {
    name: 'issue',
    url: `/api/issuer/${issuer.did}/issue`,
    token: issuer.token,
    body: (n) => ({
      credential_type: 'Degree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: `Ada ${n}`, gpa: 3.5 },
    }),
  },
  {
    name: 'offer',
    url: `/api/issuer/${issuer.did}/offers`,
    token: issuer.token,
    body: (n) => ({ credential_type: 'Degree', schema_id: schemaId, attributes: { given_name: `Ada ${n}`, gpa: 3.5 } }),
  },
  {
    name: 'template',
    url: `/api/issuer/${issuer.did}/templates`,
    token: issuer.token,
    body: (n) => ({
      name: `T ${randomUUID()} ${n}`,
      credential_type: 'Degree',
      schema_id: schemaId,
      fixed_attributes: { gpa: 3 },
    }),
  },
  {
    name: 'credential request',
    url: '/api/wallet/credential-request',
    token: holderToken,
    body: (n) => ({
      issuer_did: issuer.did,
      schema_id: schemaId,
      credential_type: 'Degree',
      attributes: { given_name: `Ada ${n}` },
    }),
  },
  {
    name: 'consent',
    url: `/api/wallet/${holder.did}/consents`,
    token: holderToken,
    body: (n) => ({ verifier_did: verifier.did, purpose: `Purpose ${n}` }),
  },
  {
    name: 'verifier request',
    url: '/api/verifier/requests',
    token: verifierToken,
    body: (n) => ({
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [
        { credential_type: 'Degree', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      purpose: `Hiring ${n}`,
    }),
  },
]

async function phase(route: Route, keyed: boolean): Promise<PhaseResult> {
  return closedLoop(CONNECTIONS, SECONDS, async (n) => {
    const headers = { ...bearer(route.token), ...(keyed ? { 'idempotency-key': `"${randomUUID()}"` } : {}) }
    const res = await t.app.inject({ method: 'POST', url: route.url, headers, payload: route.body(n) })
    return res.statusCode === 201 ? undefined : `${res.statusCode} ${res.json().message}`
  })
}

console.log(`${ENGINE}: ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} in flight, in process; medians\n`)
console.log(
  `${'route'.padEnd(20)} ${'unkeyed/s'.padStart(10)} ${'keyed/s'.padStart(10)} ${'ratio'.padStart(6)} ${'p50 unkeyed'.padStart(12)} ${'p50 keyed'.padStart(10)}`,
)
const results = []
for (const route of routes) {
  await phase(route, true) // warm-up, both paths
  await phase(route, false)
  const plain: PhaseResult[] = []
  const keyed: PhaseResult[] = []
  for (let r = 0; r < ROUNDS; r++) {
    plain.push(await phase(route, false))
    keyed.push(await phase(route, true))
  }
  const errors = [...plain, ...keyed].reduce((sum, p) => sum + p.errors, 0)
  if (errors > 0)
    throw new Error(`${route.name}: ${errors} errors: ${JSON.stringify([...plain, ...keyed].map((p) => p.errorKinds))}`)
  const row = {
    route: route.name,
    unkeyedPerSecond: median(plain.map((p) => p.perSecond)),
    keyedPerSecond: median(keyed.map((p) => p.perSecond)),
    unkeyedP50Ms: median(plain.map((p) => p.p50Ms)),
    keyedP50Ms: median(keyed.map((p) => p.p50Ms)),
    rounds: { unkeyed: plain.map((p) => Math.round(p.perSecond)), keyed: keyed.map((p) => Math.round(p.perSecond)) },
  }
  results.push(row)
  console.log(
    `${row.route.padEnd(20)} ${row.unkeyedPerSecond.toFixed(0).padStart(10)} ${row.keyedPerSecond.toFixed(0).padStart(10)} ${(row.keyedPerSecond / row.unkeyedPerSecond).toFixed(2).padStart(6)} ${row.unkeyedP50Ms.toFixed(1).padStart(12)} ${row.keyedP50Ms.toFixed(1).padStart(10)}`,
  )
}

const out = path.resolve(import.meta.dirname, `results/idempotency-${ENGINE}.json`)
await mkdir(path.dirname(out), { recursive: true })
await writeFile(
  out,
  JSON.stringify(
    {
      engine: ENGINE,
      rounds: ROUNDS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      at: new Date().toISOString(),
      results,
    },
    null,
    2,
  ) + '\n',
)
console.log(`\nwrote ${path.relative(process.cwd(), out)}`)
await t.close()
