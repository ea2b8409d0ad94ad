process.env.TEST_DB_ENGINE = 'pglite'
import { PGliteThread } from './src/db/pglite-thread.js'
const { createTestApp } = await import('./test/helpers/test-app.js')
const { JsonClient } = await import('./bench/lib/http-client.js')
const { setUpIssuer } = await import('./bench/lib/issuance-load.js')
const { setUpPresentations } = await import('./bench/lib/verification-load.js')
const captured: Array<[string, readonly unknown[]]> = []
let recording = false
let thread: PGliteThread | undefined
const orig = PGliteThread.prototype.query
PGliteThread.prototype.query = function (sql, params, turn) {
  thread = this
  if (recording) captured.push([sql, params])
  return orig.call(this, sql, params, turn)
}
const test = await createTestApp()
const address = await test.app.listen({ port: 0, host: '127.0.0.1' })
const client = new JsonClient(address, 4)
const issuer = await setUpIssuer(client)
const setUp = await setUpPresentations(client, issuer)
const p = setUp.presentations[0]!
await client.post(`/api/verifier/presentations/${p.id}/verify`, { presentation_jwt: p.jwt }, setUp.headers)
recording = true
await client.post(`/api/verifier/presentations/${p.id}/verify`, { presentation_jwt: p.jwt }, setUp.headers)
recording = false
const [, , , upd] = captured
const variants: Array<[string, readonly unknown[]]> = [
  [upd![0].replace('where "id" = $3 returning', 'where "id" = $3 and "status" is distinct from $1 returning'), upd![1]],
  [upd![0].replace(/with "request_update" as \(.*?\) update/, 'update').replace(/\$(\d+)/g, (_, n) => '$' + (Number(n) - 3)), upd![1].slice(3)],
  [upd![0].replace(/with "request_update" as \(.*?\) update/, 'update').replace(/\$(\d+)/g, (_, n) => '$' + (Number(n) - 3)).replace('returning *', 'returning id'), upd![1].slice(3)],
]
captured.push(...variants)
for (const [sql, params] of captured) {
  for (let i = 0; i < 200; i++) await orig.call(thread!, sql, params, 0)
  const t0 = performance.now()
  const n = 2000
  for (let i = 0; i < n; i++) await orig.call(thread!, sql, params, 0)
  const us = ((performance.now() - t0) * 1000) / n
  console.log(us.toFixed(0).padStart(5), 'µs', sql.replace(/\s+/g, ' '))
  console.log(JSON.stringify(params).slice(0, 300))
  continue
  const plan = await orig.call(thread!, 'explain (analyze, buffers) ' + sql, params, 0)
  console.log(plan.rows.map((r) => Object.values(r as object)[0]).join('\n'))
}
const t0 = performance.now()
for (let i = 0; i < 2000; i++) await orig.call(thread!, 'select 1', [], 0)
console.log(((performance.now() - t0) * 1000 / 2000).toFixed(0).padStart(5), 'µs select 1')
client.close(); await test.close(); await test.deps.database.close()
