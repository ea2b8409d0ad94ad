/**
 * Prints the SQL statements (BEGIN/COMMIT included) one full JWT-VC lifecycle sends to
 * PostgreSQL, grouped by HTTP request: the round trips that the load benchmark's flows/s
 * depends on. `npx tsx bench/flow-statements.ts` (BENCH_DATABASE_URL as bench:load).
 */
import pg from 'pg'
import { JsonClient } from './lib/http-client.js'
import { runFlow, setUpIssuerParty, FLOW_STEPS } from './lib/load-flow.js'
import { createVirtualUser } from './lib/virtual-user.js'

process.env.TEST_DB_ENGINE = 'postgres'
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const { createTestApp } = await import('../test/helpers/test-app.js')

const lines: string[] = []
let recording = false
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text: string }
  const text = typeof first === 'string' ? first : first.text
  if (recording) lines.push(`    ${text.replace(/\s+/g, ' ').slice(0, 220)}`)
  return original.apply(this, args)
} as typeof pg.Client.prototype.query

const test = await createTestApp()
const address = await test.app.listen({ port: 0, host: '127.0.0.1' })
const client = new JsonClient(address, 4)
const post = client.post.bind(client)
client.post = (path, body, headers) => {
  if (recording) lines.push(`POST ${path.replace(/did:key:\w+/g, ':did').replace(/aly:[\w-]+|[0-9a-f-]{36}/g, ':id')}`)
  return post(path, body, headers)
}
const issuer = await setUpIssuerParty(client, 'jwt', 'Statements issuer')
const parties = { issuer, holder: createVirtualUser(), verifier: createVirtualUser() }
const timing = new Float64Array(FLOW_STEPS.jwt.length)
await runFlow(client, 'jwt', parties, 1, timing)
recording = true
await runFlow(client, 'jwt', parties, 2, timing)
recording = false
// Let background work (outbox, batchers) settle so its statements are not counted in a flow.
await new Promise((resolve) => setTimeout(resolve, 300))
console.log(lines.join('\n'))
console.log(`\n${lines.filter((l) => l.startsWith('    ')).length} statements in one flow`)
client.close()
await test.close()
await test.deps.database.close()
