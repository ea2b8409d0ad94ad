import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createMigrator } from '../../src/db/migrator.js'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { issuerStatisticsBySql, walletStatisticsBySql } from '../helpers/statistics-by-sql.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { foreignCredential } from '../helpers/wallet-fixtures.js'

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const HOUR = 3600_000

/** The actors and operations of both suites: two issuers, two holders, an issuer elsewhere. */
class World {
  readonly clock = new ManualClock(new Date())
  readonly issuers = [new IssuerActor(), new IssuerActor()]
  readonly holders = [new DidClient(), new DidClient()]
  readonly external = new DidClient()
  readonly holderTokens: string[] = []
  readonly schemaIds: string[] = []
  t!: TestApp

  async setUp(): Promise<void> {
    this.t = await createTestApp({ clock: this.clock, env: { JWT_TTL_SECONDS: String(30 * 86400) } })
    for (const [i, issuer] of this.issuers.entries()) {
      await issuer.setUp(this.t.app, `Office ${i}`)
      this.schemaIds.push(await issuer.schema(this.t.app, SCHEMA))
    }
    for (const holder of this.holders) this.holderTokens.push(await holder.login(this.t.app))
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies of several routes
  private async ok(res: Promise<{ statusCode: number; body: string; json(): any }>, status = 200) {
    const r = await res
    assert.equal(r.statusCode, status, r.body)
    return r.json()
  }

  async issue(i: number, h: number, expiresInMs?: number): Promise<string> {
    const issuer = this.issuers[i]!
    const body = {
      credential_type: i === 0 ? 'Pass' : 'Badge',
      schema_id: this.schemaIds[i],
      subject_did: this.holders[h]!.did,
      attributes: { holder_name: 'H' },
      ...(expiresInMs ? { expiration_date: new Date(this.clock.now().getTime() + expiresInMs).toISOString() } : {}),
    }
    return (await this.ok(callAs(this.t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, body), 201))
      .credential.id
  }

  revoke(i: number, id: string) {
    return this.ok(
      callAs(
        this.t.app,
        'POST',
        `/api/issuer/${this.issuers[i]!.did}/credentials/${id}/revoke`,
        this.issuers[i]!.token,
        { reason: 'test' },
      ),
    )
  }

  async import(h: number, expiresInMs?: number): Promise<string> {
    const exp = expiresInMs ? Math.floor((this.clock.now().getTime() + expiresInMs) / 1000) : undefined
    // Valid from the test's clock, which stands still while the real one runs on.
    const jwt = foreignCredential(this.external, {
      subject: this.holders[h]!.did,
      type: 'ExternalBadge',
      nbf: Math.floor(this.clock.now().getTime() / 1000),
      ...(exp ? { exp } : {}),
    })
    return (
      await this.ok(
        callAs(this.t.app, 'POST', `/api/wallet/${this.holders[h]!.did}/credentials/import`, this.holderTokens[h], {
          credential_jwt: jwt,
        }),
        201,
      )
    ).credential.id
  }

  /** Holder-side withdrawal; 200 whatever else happens to the credential meanwhile, or 404 once removed. */
  async withdraw(h: number, id: string) {
    const res = await callAs(
      this.t.app,
      'POST',
      `/api/wallet/${this.holders[h]!.did}/credentials/${id}/revoke`,
      this.holderTokens[h],
      { reason: 'mine' },
    )
    assert.ok([200, 404, 409].includes(res.statusCode), res.body)
  }

  async remove(h: number, id: string) {
    const res = await callAs(
      this.t.app,
      'DELETE',
      `/api/wallet/${this.holders[h]!.did}/credentials/${id}`,
      this.holderTokens[h],
    )
    assert.ok([200, 404].includes(res.statusCode), res.body)
  }

  async request(h: number, i: number): Promise<string> {
    return (
      await this.ok(
        callAs(this.t.app, 'POST', '/api/wallet/credential-request', this.holderTokens[h], {
          issuer_did: this.issuers[i]!.did,
          schema_id: this.schemaIds[i],
          credential_type: 'Pass',
        }),
        201,
      )
    ).request.id
  }

  reject(i: number, id: string) {
    return this.ok(
      callAs(
        this.t.app,
        'POST',
        `/api/wallet/issuer/${this.issuers[i]!.did}/request/${id}/reject`,
        this.issuers[i]!.token,
        { reason: 'no' },
      ),
    )
  }

  share(h: number, id: string) {
    return this.ok(
      callAs(this.t.app, 'POST', `/api/wallet/${this.holders[h]!.did}/credentials/share`, this.holderTokens[h], {
        credential_id: id,
      }),
      201,
    )
  }

  /** Every statistics route's numbers against the same numbers counted by SQL over the rows. */
  async assertExact(): Promise<void> {
    const db = this.t.deps.database.db
    const now = this.clock.now()
    for (const issuer of this.issuers) {
      const res = await this.ok(callAs(this.t.app, 'GET', `/api/issuer/${issuer.did}/statistics`, issuer.token))
      assert.deepEqual(res.statistics, await issuerStatisticsBySql(db, issuer.did, now), `issuer ${issuer.did}`)
    }
    for (const [h, holder] of this.holders.entries()) {
      const { generated_at: _, ...statistics } = (
        await this.ok(callAs(this.t.app, 'GET', `/api/wallet/${holder.did}/statistics`, this.holderTokens[h]))
      ).statistics
      assert.deepEqual(statistics, await walletStatisticsBySql(db, holder.did, now), `holder ${holder.did}`)
    }
  }
}

describe('statistics counters', () => {
  const w = new World()
  before(() => w.setUp())
  after(() => w.t.close())

  it('equal a fresh count of the rows after concurrent issue, revoke, delete, import, withdrawal and removal', async () => {
    // Round 1: issuances by both issuers to both holders, imports and requests, all at once.
    const issued = await Promise.all(
      Array.from({ length: 24 }, (_, n) => w.issue(n % 3 === 2 ? 1 : 0, n % 2, n % 4 === 0 ? HOUR : undefined)),
    )
    const [imports, requests] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, n) => w.import(n % 2, n % 3 === 0 ? HOUR : undefined))),
      Promise.all(Array.from({ length: 4 }, (_, n) => w.request(n % 2, 0))),
    ])
    await w.assertExact()

    // Round 2: the same credentials revoked by their issuer, withdrawn, removed and shared by
    // their holder at the same time, while more are issued and imported.
    const issuerOf = (n: number) => (n % 3 === 2 ? 1 : 0)
    await Promise.all([
      ...issued.flatMap((id, n) => [
        n % 2 === 0 ? w.revoke(issuerOf(n), id) : Promise.resolve(),
        n % 3 === 0 ? w.withdraw(n % 2, id) : Promise.resolve(),
        n % 4 < 2 ? w.remove(n % 2, id) : Promise.resolve(),
        n % 5 === 1 ? w.share(n % 2, id).catch(() => undefined) : Promise.resolve(),
      ]),
      ...imports.flatMap((id, n) => [
        n % 2 === 0 ? w.withdraw(n % 2, id) : Promise.resolve(),
        n % 3 < 2 ? w.remove(n % 2, id) : Promise.resolve(),
      ]),
      ...requests.slice(0, 2).map((id) => w.reject(0, id)),
      ...Array.from({ length: 8 }, (_, n) => w.issue(n % 2, n % 2)),
      ...Array.from({ length: 4 }, (_, n) => w.import(n % 2)),
    ])
    await w.assertExact()

    // Time passes beyond the expiring credentials' expiry and the shares' lifetime (not events).
    w.clock.advance(2 * HOUR)
    await w.assertExact()
    w.clock.advance(2 * 24 * HOUR)
    await w.assertExact()
  })

  it('follow changes made to the rows by any path, SQL included (status refresh, deletion)', async () => {
    const db = w.t.deps.database.db
    await sql`update wallet_imports set status = 'revoked' where id = (select id from wallet_imports where status = 'active' order by id limit 1)`.execute(
      db,
    )
    await sql`delete from credentials where id = (select id from credentials where owner_did is not null order by id limit 1)`.execute(
      db,
    )
    await sql`update credentials set credential_type = 'Renamed' where id in (select id from credentials order by id desc limit 3)`.execute(
      db,
    )
    await w.assertExact()
  })

  it('are folded to one row per number without changing a number', async () => {
    const db = w.t.deps.database.db
    const rows = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from statistics_deltas`.execute(db)).rows[0]!.n)
    const keys = async () =>
      Number(
        (
          await sql<{
            n: string
          }>`select count(*) as n from (select distinct did, metric, key from statistics_deltas) k`.execute(db)
        ).rows[0]!.n,
      )
    // Many single-credential changes leave many deltas per DID; reading folds them.
    for (let n = 0; n < 70; n++) await w.issue(0, 0)
    assert.ok((await rows()) > (await keys()) + 64)
    await w.assertExact()
    await w.assertExact()
    const issuerDid = w.issuers[0]!.did
    const issuerRows = Number(
      (await sql<{ n: string }>`select count(*) as n from statistics_deltas where did = ${issuerDid}`.execute(db))
        .rows[0]!.n,
    )
    const issuerKeys = Number(
      (
        await sql<{
          n: string
        }>`select count(distinct (metric, key)) as n from statistics_deltas where did = ${issuerDid}`.execute(db)
      ).rows[0]!.n,
    )
    assert.equal(issuerRows, issuerKeys)
  })
})

describe('statistics counters back-filled by their migration', () => {
  const w = new World()
  before(() => w.setUp())
  after(() => w.t.close())

  it('count the rows written before the migration', async () => {
    const migrator = createMigrator(w.t.deps.database.db)
    // Back to the migration before the counters' (later migrations are undone on the way).
    const down = await migrator.migrateTo('20261127T2100-credential-cid-hash-index')
    assert.equal(down.error, undefined)
    assert.ok(
      down.results?.some((r) => r.migrationName === '20261127T2100-statistics-counters' && r.direction === 'Down'),
    )
    const issued = await Promise.all(
      Array.from({ length: 12 }, (_, n) => w.issue(n % 2, n % 2, n % 3 === 0 ? HOUR : undefined)),
    )
    const imports = await Promise.all(Array.from({ length: 4 }, (_, n) => w.import(n % 2, n === 0 ? HOUR : undefined)))
    const requests = await Promise.all([w.request(0, 0), w.request(1, 0), w.request(1, 1)])
    await w.revoke(0, issued[0]!)
    await w.revoke(1, issued[1]!)
    await w.withdraw(0, issued[2]!)
    await w.withdraw(1, imports[1]!)
    await w.remove(0, issued[4]!)
    await w.remove(0, imports[2]!)
    await w.share(1, issued[3]!)
    await w.reject(0, requests[0]!)

    const up = await migrator.migrateToLatest()
    assert.equal(up.error, undefined)
    await w.assertExact()
    w.clock.advance(2 * HOUR)
    await w.assertExact()
  })
})
