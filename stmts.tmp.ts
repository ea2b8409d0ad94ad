process.env.TEST_DB_ENGINE = 'pglite'
import { PGliteThread } from './src/db/pglite-thread.js'
const { createTestApp } = await import('./test/helpers/test-app.js')
const { JsonClient } = await import('./bench/lib/http-client.js')
const { setUpIssuer, enrollHolders, BENCH_CREDENTIAL_TYPE, benchAttributes } = await import('./bench/lib/issuance-load.js')
const { setUpPresentations } = await import('./bench/lib/verification-load.js')
const lines: string[] = []
let recording = false
const orig = PGliteThread.prototype.query
PGliteThread.prototype.query = function (sql, params, turn) {
  if (recording) lines.push(`  [${turn}] ${sql.replace(/\s+/g, ' ').slice(0, 250)}`)
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
lines.push('VERIFY')
const r = await client.post(`/api/verifier/presentations/${p.id}/verify`, { presentation_jwt: p.jwt }, setUp.headers)
await new Promise((res) => setTimeout(res, 300))
lines.push('ISSUE JWT-only')
const holder = (await import('./bench/lib/virtual-user.js')).createVirtualUser()
await enrollHolders(client, issuer, [holder.did])
lines.push('-- issue')
const i = await client.post(`/api/issuer/${issuer.did}/issue`, { credential_type: BENCH_CREDENTIAL_TYPE, schema_id: issuer.schemaIds.jwt, subject_did: holder.did, attributes: benchAttributes(3) }, issuer.headers)
await new Promise((res) => setTimeout(res, 500))
recording = false
console.log(r.status, i.status)
console.log(lines.join('\n'))
client.close(); await test.close(); await test.deps.database.close()
