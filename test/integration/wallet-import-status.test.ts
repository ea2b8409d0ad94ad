/**
 * An imported credential's status follows its issuer's status list after the import
 * (docs/wallet.md "Status of imported credentials"), and a credential issued here records its
 * revocation in the holder's activity log. Real: the app, its database, the refresher on real
 * timers, the status-list check and signature verification; the issuer's status-list server
 * is the HttpGet stub below, serving lists this test signs and compresses itself.
 */
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import type { HttpGet, HttpResponse } from '../../src/adapters/http-out/guarded-fetch.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import { StatusChecker } from '../../src/modules/status-list/status-check.js'
import { createFormatRegistry } from '../../src/modules/credentials/formats/format-registry.js'
import { jwtVcJson } from '../../src/modules/credentials/formats/jwt-vc-json/jwt-vc-json.format.js'
import { vcJose } from '../../src/modules/credentials/formats/vc-jose/vc-jose.format.js'
import { ImportedStatusRefresher } from '../../src/modules/wallet/imported-status-refresher.js'
import { waitFor } from '../helpers/chain.js'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { foreignCredential, signJwt } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/** An issuer's status-list server: lists by URL, their bits settable, reads counted. */
class StatusListServer {
  readonly lists = new Map<string, Uint8Array>()
  readonly down = new Set<string>()
  readonly reads: string[] = []
  constructor(private readonly issuer: DidClient) {}

  entry(url: string, index: number) {
    if (!this.lists.has(url)) this.lists.set(url, new Uint8Array(16))
    return {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: url,
    }
  }

  /** Bit 0 is the most significant bit of the first byte (Bitstring Status List v1.0 §3.2). */
  revoke(url: string, index: number): void {
    this.lists.get(url)![index >> 3]! |= 0x80 >> (index & 7)
  }

  readonly httpGet: HttpGet = async (url): Promise<HttpResponse> => {
    this.reads.push(url)
    const bits = this.lists.get(url)
    if (!bits || this.down.has(url)) return { status: 503, headers: {}, body: new Uint8Array(), url }
    const jwt = signJwt(this.issuer, {
      iss: this.issuer.did,
      iat: Math.floor(Date.now() / 1000),
      vc: {
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        issuer: this.issuer.did,
        credentialSubject: {
          type: 'BitstringStatusList',
          statusPurpose: 'revocation',
          encodedList: `u${gzipSync(bits).toString('base64url')}`,
        },
      },
    })
    return {
      status: 200,
      headers: { 'content-type': 'application/vc+jwt' },
      body: new Uint8Array(Buffer.from(jwt)),
      url,
    }
  }
}

/**
 * For one describe: an outside issuer with its status-list server, a holder signed in to the app
 * (WALLET_STATUS_REFRESH_MS as given), importing that issuer's credentials and reading their status.
 */
function importScene(refreshMs: string) {
  const scene = { external: new DidClient(), holder: new DidClient(), t: undefined as unknown as TestApp, token: '' }
  const server = new StatusListServer(scene.external)
  before(async () => {
    scene.t = await createTestApp({ httpGet: server.httpGet, env: { WALLET_STATUS_REFRESH_MS: refreshMs } })
    scene.token = await scene.holder.login(scene.t.app)
  })
  after(() => scene.t?.close())
  const { holder } = scene
  return {
    scene,
    server,
    async importWith(status: Record<string, unknown>): Promise<string> {
      const res = await callAs(scene.t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, scene.token, {
        credential_jwt: foreignCredential(scene.external, { subject: holder.did, status }),
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().credential.status, 'active')
      return res.json().credential.id
    },
    async statusOf(id: string): Promise<string> {
      const res = await callAs(
        scene.t.app,
        'GET',
        `/api/wallet/${holder.did}/credentials?source=imported&limit=200`,
        scene.token,
      )
      assert.equal(res.statusCode, 200, res.body)
      const entry = res.json().data.find((c: Json) => c.id === id)
      assert.ok(entry, `${id} is listed`)
      return entry.status
    },
    async revokedEntries(): Promise<Json[]> {
      const res = await callAs(
        scene.t.app,
        'GET',
        `/api/wallet/${holder.did}/activities?type=credential_revoked&limit=200`,
        scene.token,
      )
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    },
  }
}

const LIST_A = 'https://status.example/lists/a'
const LIST_B = 'https://status.example/lists/b'

describe('status of imported credentials', () => {
  const { scene, server, importWith, statusOf, revokedEntries } = importScene('1000')

  it('marks an import revoked once its issuer revokes it, with one activity entry; an unreadable list changes nothing', async () => {
    const revokedLater = await importWith(server.entry(LIST_A, 5))
    const neighbour = await importWith(server.entry(LIST_A, 6))
    const unreadable = await importWith(server.entry(LIST_B, 1))

    server.revoke(LIST_A, 5)
    server.revoke(LIST_B, 1)
    server.down.add(LIST_B)
    await waitFor('the revocation is seen', async () => (await statusOf(revokedLater)) === 'revoked')
    // Later rounds read the lists again; nothing more changes.
    const readsBefore = server.reads.length
    await waitFor('two more readings', () => server.reads.filter((u) => u === LIST_A).length >= readsBefore + 2)
    assert.equal(await statusOf(neighbour), 'active')
    assert.equal(await statusOf(unreadable), 'active', 'a list that cannot be read keeps the last known status')
    const entries = await revokedEntries()
    assert.deepEqual(
      entries.map((e) => e.credential_id),
      [revokedLater],
    )
    assert.equal(entries[0]!.details.source, 'imported')
    assert.equal(entries[0]!.details.issuer_did, scene.external.did)

    // Back up, the list's revocation is found too.
    server.down.delete(LIST_B)
    await waitFor('the other list read again', async () => (await statusOf(unreadable)) === 'revoked')
    assert.deepEqual((await revokedEntries()).map((e) => e.credential_id).sort(), [revokedLater, unreadable].sort())
  })
})

describe('a refresher round', () => {
  // The app's own refresher is off (0): the rounds below are the only ones.
  const { scene, server, importWith, statusOf, revokedEntries } = importScene('0')

  it('reads each list once, claims only imports whose reading is old, and leaves revoked ones alone', async () => {
    const clock = new ManualClock(new Date(Date.now() + 3_600_000))
    const resolver = createDidResolver({ httpGet: server.httpGet, lookupLocal: async () => undefined })
    const { t } = scene
    const status = new StatusChecker({
      db: t.deps.database.db,
      publicBaseUrl: t.config.publicBaseUrl,
      httpGet: server.httpGet,
      resolver,
      formats: createFormatRegistry([vcJose, jwtVcJson]),
      issuerOf: async () => undefined,
    })
    const refresher = new ImportedStatusRefresher({
      db: t.deps.database.db,
      status,
      formats: createFormatRegistry([jwtVcJson]),
      clock,
      intervalMs: 60_000,
      batchSize: 2,
    })
    const url = 'https://status.example/lists/shared'
    const ids = [
      await importWith(server.entry(url, 1)),
      await importWith(server.entry(url, 2)),
      await importWith(server.entry(url, 3)),
    ]
    server.revoke(url, 2)

    // Three due, two per round: two rounds, the shared list read once in each.
    const readsBefore = server.reads.length
    const first = await refresher.refreshDue()
    const second = await refresher.refreshDue()
    assert.deepEqual([first.checked, second.checked], [2, 1])
    assert.equal(first.revoked + second.revoked, 1)
    assert.equal(server.reads.length - readsBefore, 2)
    assert.deepEqual(await Promise.all(ids.map(statusOf)), ['active', 'revoked', 'active'])

    // Just read: not due again until the interval has passed; then the revoked one is not claimed.
    assert.equal((await refresher.refreshDue()).checked, 0)
    clock.advance(61_000)
    assert.deepEqual(await refresher.refreshDue(), { checked: 2, revoked: 0, unknown: 0 })
    assert.deepEqual(
      (await revokedEntries()).map((e) => e.credential_id),
      [ids[1]],
    )
  })
})

describe('revocation of a credential issued here, in the holder activity log', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Logged University')
  })
  after(() => t?.close())

  it('writes one credential_revoked entry for the holder, none on a second revocation', async () => {
    const holderToken = await holder.login(t.app)
    const schemaId = await issuer.schema(t.app, {
      name: 'Card',
      version: '1',
      attributes: [{ name: 'n', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Card',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { n: 'x' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const id = issued.json().credential.id
    for (let i = 0; i < 2; i++)
      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${id}/revoke`, issuer.token)).statusCode,
        200,
      )
    const res = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/activities?type=credential_revoked`, holderToken)
    assert.equal(res.statusCode, 200, res.body)
    const entries = res.json().data
    assert.deepEqual(
      entries.map((e: Json) => [e.credential_id, e.details.source, e.details.issuer_did]),
      [[id, 'issued', issuer.did]],
    )
  })
})
