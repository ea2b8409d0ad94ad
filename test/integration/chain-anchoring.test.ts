/**
 * Chain anchoring end to end. Real parts: the app over inject(), the database (PGlite or
 * PostgreSQL, per the runner), the outbox dispatcher on real timers (short poll and batch
 * window), viem over HTTP to an EDR dev chain started here with the registries deployed.
 * "Chain down" closes the chain's RPC port (state kept) and opens it again.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { sql } from 'kysely'
import { keccak256, stringToBytes, type Hex } from 'viem'
import { credentialRegistryAbi } from '../../src/adapters/chain/registry-abis.js'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import { chainEnv, startChainWithRegistries, viemClients, waitFor } from '../helpers/chain.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const hashHex = () => randomBytes(32).toString('hex')

describe('chain anchoring through the outbox', () => {
  let chain: DevChain
  let deployment: Deployment
  let t: TestApp
  const issuer = new DidClient()
  const holder = new DidClient()
  const verifier = new DidClient()
  let issuerToken: string
  let holderToken: string

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
    t = await createTestApp({
      env: chainEnv(chain, deployment, 0, {
        BLOCKCHAIN_POLL_MS: '50',
        BLOCKCHAIN_BATCH_WAIT_MS: '150',
        BLOCKCHAIN_BATCH_SIZE: '1000',
        OUTBOUND_TIMEOUT_MS: '2000',
      }),
    })
    issuerToken = await issuer.login(t.app)
    holderToken = await holder.login(t.app)
  })
  after(async () => {
    await t?.close()
    await chain?.stop()
  })

  const post = (url: string, token: string | undefined, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: token ? bearer(token) : {}, payload: payload as object })
  const get = (url: string) => t.app.inject({ method: 'GET', url })
  const checkUrl = (did: string, hash: string) => `/api/blockchain/credential/check/${encodeURIComponent(did)}/${hash}`
  const check = async (did: string, hash: string) => (await get(checkUrl(did, hash))).json().data

  it('register, check, revoke, check again', async () => {
    const hash = hashHex()
    const res = await post('/api/blockchain/credential/register', issuerToken, {
      issuer_did: issuer.did,
      credential_hash: hash,
    })
    assert.equal(res.statusCode, 201, res.body)
    const queued = res.json().data
    assert.equal(queued.anchoring, 'queued')
    assert.equal(queued.on_chain, false)

    await waitFor('the batch with the hash is mined', async () => (await check(issuer.did, hash)).anchoring === 'mined')
    const anchored = await check(issuer.did, hash)
    assert.equal(anchored.on_chain, true)
    assert.equal(anchored.revoked, false)
    assert.equal(anchored.chain.verified_on_chain, true)
    assert.equal(anchored.chain.contract, deployment.contracts.credentialRegistry)
    assert.match(anchored.blockchain_tx_hash, /^0x[0-9a-f]{64}$/)
    // What anyone does with the answer: StandardMerkleTree.verify, then the registry's own check.
    const { merkle } = anchored
    assert.equal(merkle.format, 'standard-v1')
    assert.deepEqual(merkle.value, [keccak256(stringToBytes(issuer.did)), `0x${hash}`])
    assert.ok(StandardMerkleTree.verify(merkle.root, merkle.leaf_encoding, merkle.value, merkle.proof))
    const reader = viemClients(chain, 1).publicClient
    const inclusion = (proof: Hex[]) =>
      reader.readContract({
        address: deployment.contracts.credentialRegistry,
        abi: credentialRegistryAbi,
        functionName: 'verifyInclusion',
        args: [merkle.root, ...merkle.value, proof] as never,
      })
    assert.equal(await inclusion(merkle.proof), true)
    assert.equal(await inclusion([`0x${hashHex()}`]), false)
    assert.equal(
      StandardMerkleTree.verify(merkle.root, merkle.leaf_encoding, [merkle.value[0], `0x${hashHex()}`], merkle.proof),
      false,
    )

    const revoked = await post('/api/blockchain/credential/revoke', issuerToken, {
      issuer_did: issuer.did,
      credential_hash: `0x${hash.toUpperCase()}`,
    })
    assert.equal(revoked.statusCode, 200, revoked.body)
    await waitFor(
      'the revocation is mined',
      async () => (await check(issuer.did, hash)).revocation?.anchoring === 'mined',
    )
    const after = await check(issuer.did, hash)
    assert.equal(after.revoked, true)
    assert.equal(after.on_chain, true)
    assert.equal(after.chain.verified_on_chain, true)
    assert.match(after.revocation.blockchain_tx_hash, /^0x[0-9a-f]{64}$/)
  })

  it('writes need a token and the caller’s own DID; reads are public; unknown hashes are 404; bodies are validated', async () => {
    const hash = hashHex()
    assert.equal(
      (await post('/api/blockchain/credential/register', undefined, { issuer_did: issuer.did, credential_hash: hash }))
        .statusCode,
      401,
    )
    assert.equal(
      (
        await post('/api/blockchain/credential/register', holderToken, {
          issuer_did: issuer.did,
          credential_hash: hash,
        })
      ).statusCode,
      403,
    )
    assert.equal(
      (
        await post('/api/blockchain/credential/register', issuerToken, {
          issuer_did: issuer.did,
          credential_hash: 'abc',
        })
      ).statusCode,
      400,
    )
    assert.equal(
      (await post('/api/blockchain/credential/revoke', issuerToken, { issuer_did: issuer.did, credential_hash: hash }))
        .statusCode,
      404,
    )
    assert.equal((await get(checkUrl(issuer.did, hash))).statusCode, 404)
    const status = await get('/api/blockchain/status')
    assert.equal(status.statusCode, 200)
    assert.equal(status.json().data.configured, true)
    assert.equal(status.json().data.reachable, true)
    assert.equal(status.json().data.chain_id, chain.chainId)
  })

  it('schema and consent round trips', async () => {
    const schemaHash = hashHex()
    const schema = await post('/api/blockchain/schema/register', issuerToken, {
      issuer_did: issuer.did,
      schema_id: 'schema-chain-1',
      schema_hash: schemaHash,
    })
    assert.equal(schema.statusCode, 201, schema.body)
    await waitFor(
      'the schema is on chain',
      async () => (await get('/api/blockchain/schema/check/schema-chain-1')).statusCode === 200,
    )
    const onChain = (await get('/api/blockchain/schema/check/schema-chain-1')).json().data
    assert.equal(onChain.schema_hash, schemaHash)
    assert.equal(onChain.versions, 1)

    const purpose = 'age verification for account opening'
    const consentUrl = `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(verifier.did)}/${encodeURIComponent(purpose)}`
    assert.equal((await get(consentUrl)).statusCode, 404)
    assert.equal(
      (
        await post('/api/blockchain/consent/grant', issuerToken, {
          user_did: holder.did,
          verifier_did: verifier.did,
          purpose,
        })
      ).statusCode,
      403,
    )
    const granted = await post('/api/blockchain/consent/grant', holderToken, {
      user_did: holder.did,
      verifier_did: verifier.did,
      purpose,
    })
    assert.equal(granted.statusCode, 201, granted.body)
    await waitFor('the consent is on chain', async () => (await get(consentUrl)).json().data.valid === true)
    const view = (await get(consentUrl)).json().data
    assert.equal(view.chain.verified_on_chain, true)
    // Nothing readable on chain: only the salted key.
    assert.match(view.consent_key, /^0x[0-9a-f]{64}$/)
    const logs = (await chain.request('eth_getLogs', [
      { address: deployment.contracts.consentRegistry, fromBlock: '0x0', toBlock: 'latest' },
    ])) as Array<{ data: string; topics: string[] }>
    const onChainText = JSON.stringify(logs)
    assert.ok(onChainText.includes(view.consent_key.slice(2)))
    for (const clear of [holder.did, verifier.did, purpose])
      assert.ok(!onChainText.includes(Buffer.from(clear).toString('hex')))

    const revoked = await post('/api/blockchain/consent/revoke', holderToken, {
      user_did: holder.did,
      verifier_did: verifier.did,
      purpose,
    })
    assert.equal(revoked.statusCode, 200, revoked.body)
    await waitFor(
      'the consent revocation is on chain',
      async () => (await get(consentUrl)).json().data.revoked === true,
    )
    assert.equal((await get(consentUrl)).json().data.valid, false)
  })

  it('a batch of 1,000 hashes is anchored in one transaction, with inclusion proofs that verify', async (ctx) => {
    const hashes = Array.from({ length: 1000 }, hashHex)
    const started = Date.now()
    await t.deps.database.db.transaction().execute(async (trx) => {
      for (const h of hashes) {
        const { queued } = await t.app.chainAnchor.enqueue(trx, {
          kind: 'credential',
          issuerDid: issuer.did,
          credentialHash: h,
        })
        assert.equal(queued, true)
      }
    })
    t.app.chainAnchor.nudge()
    const db = t.deps.database.db
    await waitFor(
      'all 1,000 are in mined batches',
      async () => {
        const row = await sql<{ n: number | string }>`
        select count(*) as n from chain_credentials c join chain_jobs j on j.id = c.batch_job_id
        where c.credential_hash in (${sql.join(hashes)}) and j.status = 'mined'`.execute(db)
        return Number(row.rows[0]?.n) === 1000
      },
      60_000,
    ) // building the tree is CPU work, slower while other test files run beside this one
    const batches = await sql<{ batch_job_id: number | string; tx_hash: string }>`
      select distinct c.batch_job_id, j.tx_hash from chain_credentials c join chain_jobs j on j.id = c.batch_job_id
      where c.credential_hash in (${sql.join(hashes)})`.execute(db)
    assert.equal(batches.rows.length, 1, 'one batch, one transaction')
    const receipt = (await chain.request('eth_getTransactionReceipt', [batches.rows[0]!.tx_hash])) as {
      gasUsed: string
      status: string
    }
    assert.equal(receipt.status, '0x1')
    ctx.diagnostic(
      `1,000 hashes: queued to mined in ${Date.now() - started} ms; anchoring gas ${BigInt(receipt.gasUsed)}`,
    )

    const reader = viemClients(chain, 1).publicClient
    const inclusion = (m: { root: Hex; value: [Hex, Hex] }, proof: Hex[]) =>
      reader.readContract({
        address: deployment.contracts.credentialRegistry,
        abi: credentialRegistryAbi,
        functionName: 'verifyInclusion',
        args: [m.root, ...m.value, proof],
      })
    const views = []
    for (const h of [hashes[0]!, hashes[500]!, hashes[999]!]) {
      const view = await check(issuer.did, h)
      views.push(view)
      assert.equal(view.on_chain, true)
      assert.equal(view.chain.verified_on_chain, true, 'the registry accepted the proof')
      assert.equal(view.merkle.batch_size, 1000)
      // OpenZeppelin's tree is a complete binary tree in array form: with 1,000 leaves, 24 sit one
      // level higher (proof of 9) and the rest at depth 10; leaves are sorted, so which is random.
      assert.ok([9, 10].includes(view.merkle.proof.length), `proof of ${view.merkle.proof.length}`)
      assert.ok(
        StandardMerkleTree.verify(view.merkle.root, view.merkle.leaf_encoding, view.merkle.value, view.merkle.proof),
      )
      assert.equal(await inclusion(view.merkle, view.merkle.proof), true)
    }
    // Another credential's proof is refused, by the contract and by StandardMerkleTree.
    assert.equal(await inclusion(views[0].merkle, views[1].merkle.proof), false)
    assert.equal(
      StandardMerkleTree.verify(
        views[0].merkle.root,
        views[0].merkle.leaf_encoding,
        views[0].merkle.value,
        views[1].merkle.proof,
      ),
      false,
    )
  })

  it('chain stopped mid-way: requests still succeed, and anchoring completes after it returns', async () => {
    await chain.pause()
    try {
      const hashes = Array.from({ length: 5 }, hashHex)
      for (const h of hashes) {
        const res = await post('/api/blockchain/credential/register', issuerToken, {
          issuer_did: issuer.did,
          credential_hash: h,
        })
        assert.equal(res.statusCode, 201, res.body)
      }
      const schema = await post('/api/blockchain/schema/register', issuerToken, {
        issuer_did: issuer.did,
        schema_id: 'schema-while-down',
        schema_hash: hashHex(),
      })
      assert.equal(schema.statusCode, 201)
      const consent = await post('/api/blockchain/consent/grant', holderToken, {
        user_did: holder.did,
        verifier_did: verifier.did,
        purpose: 'while down',
      })
      assert.equal(consent.statusCode, 201)
      // Granted, revoked and granted again while down: retries must not reorder them on chain.
      const toggled = { user_did: holder.did, verifier_did: verifier.did, purpose: 'toggled while down' }
      for (const [route, status] of [
        ['grant', 201],
        ['revoke', 200],
        ['grant', 201],
        ['revoke', 200],
        ['grant', 201],
      ] as const) {
        assert.equal((await post(`/api/blockchain/consent/${route}`, holderToken, toggled)).statusCode, status)
      }

      // The dispatcher tries, fails and keeps the work.
      const db = t.deps.database.db
      await waitFor('a failed attempt is recorded', async () => {
        const row = await db
          .selectFrom('chain_jobs')
          .select('last_error')
          .where('status', '=', 'pending')
          .where('last_error', 'like', 'chain unavailable%')
          .executeTakeFirst()
        return row !== undefined
      })
      const status = (await get('/api/blockchain/status')).json().data
      assert.equal(status.reachable, false)
      const view = await check(issuer.did, hashes[0]!)
      assert.equal(view.on_chain, false)
      assert.equal(view.chain.verified_on_chain, false)
      assert.doesNotMatch(JSON.stringify(view), /127\.0\.0\.1/, 'no RPC URL in answers')

      await chain.resume()
      await waitFor(
        'everything queued while down is mined',
        async () => {
          const pending = await db
            .selectFrom('chain_jobs')
            .select('id')
            .where('status', 'in', ['pending', 'sent'])
            .execute()
          const unbatched = await db
            .selectFrom('chain_credentials')
            .select('id')
            .where('batch_job_id', 'is', null)
            .execute()
          return pending.length === 0 && unbatched.length === 0
        },
        30_000,
      )
      for (const h of hashes) assert.equal((await check(issuer.did, h)).on_chain, true)
      assert.equal((await get('/api/blockchain/schema/check/schema-while-down')).statusCode, 200)
      const toggledView = (
        await get(
          `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(verifier.did)}/${encodeURIComponent('toggled while down')}`,
        )
      ).json().data
      assert.equal(toggledView.chain.verified_on_chain, true)
      assert.deepEqual(
        { valid: toggledView.valid, revoked: toggledView.revoked },
        { valid: true, revoked: false },
        'the last grant is what the chain holds',
      )
      const failed = await db.selectFrom('chain_jobs').select('id').where('status', '=', 'failed').execute()
      assert.equal(failed.length, 0, 'nothing given up')
    } finally {
      await chain.resume()
    }
  })

  it('legacy routes map onto the same service, with Deprecation, Sunset and successor Link headers', async () => {
    const hash = hashHex()
    const res = await post('/api/blockchain-legacy/register-credential', issuerToken, {
      issuerDid: issuer.did,
      credentialHash: hash,
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.match(String(res.headers.deprecation), /^@\d+$/)
    assert.ok(!Number.isNaN(Date.parse(String(res.headers.sunset))))
    assert.equal(res.headers.link, '</api/blockchain/credential/register>; rel="successor-version"')
    await waitFor(
      'mined',
      async () =>
        (await get(`/api/blockchain-legacy/verify-credential/${encodeURIComponent(issuer.did)}/${hash}`)).json().data
          .on_chain === true,
    )
    const legacyCheck = await get(`/api/blockchain-legacy/verify-credential/${encodeURIComponent(issuer.did)}/${hash}`)
    assert.ok(legacyCheck.headers.deprecation)
    assert.deepEqual(legacyCheck.json().data.merkle, (await check(issuer.did, hash)).merkle)
    const info = await get('/api/blockchain-legacy/network-info')
    assert.equal(info.statusCode, 200)
    assert.ok(info.headers.sunset)
    // Errors carry the headers too; the old camelCase body is validated.
    const bad = await post('/api/blockchain-legacy/grant-consent', holderToken, { user_did: holder.did })
    assert.equal(bad.statusCode, 400)
    assert.ok(bad.headers.deprecation)
  })
})

describe('without a configured chain', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t?.close())

  it('status says so, chain routes answer 503, and the anchor port queues nothing', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/api/blockchain/status' })
    assert.equal(status.statusCode, 200)
    assert.deepEqual(status.json().data, { configured: false, reachable: false })
    const issuer = new DidClient()
    const token = await issuer.login(t.app)
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/blockchain/credential/register',
      headers: bearer(token),
      payload: { issuer_did: issuer.did, credential_hash: hashHex() },
    })
    assert.equal(res.statusCode, 503)
    assert.match(res.json().message, /No blockchain is configured/)
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/blockchain/credential/check/${encodeURIComponent(issuer.did)}/${hashHex()}`,
        })
      ).statusCode,
      503,
    )
    const db = t.deps.database.db
    const result = await db
      .transaction()
      .execute((trx) =>
        t.app.chainAnchor.enqueue(trx, { kind: 'credential', issuerDid: issuer.did, credentialHash: hashHex() }),
      )
    assert.deepEqual(result, { queued: false })
    assert.equal(t.app.chainAnchor.configured, false)
    assert.equal((await db.selectFrom('chain_credentials').select('id').execute()).length, 0)
    assert.equal((await db.selectFrom('chain_jobs').select('id').execute()).length, 0)
  })
})
