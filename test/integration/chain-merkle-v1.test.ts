/**
 * Batches of the version-1 tree after the upgrade to OpenZeppelin's StandardMerkleTree
 * (docs/blockchain.md "Upgrading a deployment"). Real parts: the app over inject(), the database (PGlite or
 * PostgreSQL, per the runner), the dispatcher, an EDR dev chain with the current registries and
 * the version-1 registry (contracts/legacy) deployed as an older deployment would hold it. The
 * service's rows of the older batches are written here as the version before the upgrade wrote
 * them: batches without a tree format, version-1 leaves and proofs.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { concat, keccak256, stringToBytes, type Address, type Hex } from 'viem'
import { compileContracts, CONTRACTS_DIR } from '../../src/adapters/chain/contracts-build.js'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import { credentialRegistryAbi } from '../../src/adapters/chain/registry-abis.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import { chainEnv, startChainWithRegistries, viemClients, waitFor } from '../helpers/chain.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const hashHex = () => randomBytes(32).toString('hex')

/** A version-1 tree of two leaves, from its definition: leaf 0x00 ‖ issuer ‖ hash, node 0x01 ‖ sorted pair. */
function v1Tree(issuerKey: Hex, hashes: [string, string]) {
  const leaves = hashes.map((h) => keccak256(concat(['0x00', issuerKey, `0x${h}`]))) as [Hex, Hex]
  const [a, b] = leaves[0] < leaves[1] ? leaves : [leaves[1], leaves[0]]
  return { root: keccak256(concat(['0x01', a, b])), leaves, proofs: [[leaves[1]], [leaves[0]]] }
}

describe('version-1 batches after the upgrade', () => {
  let chain: DevChain
  let deployment: Deployment
  let v1Registry: Address
  let t: TestApp
  const issuer = new DidClient()
  let issuerToken: string
  const issuerKey = keccak256(stringToBytes(issuer.did))
  const mined = {
    hashes: [hashHex(), hashHex()] as [string, string],
    tree: undefined as unknown as ReturnType<typeof v1Tree>,
    tx: '' as Hex,
    block: 0n,
  }
  const pending = {
    hashes: [hashHex(), hashHex()] as [string, string],
    tree: undefined as unknown as ReturnType<typeof v1Tree>,
  }
  const queuedHash = hashHex()

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
    // The older deployment: the version-1 registry, holding one batch anchored by the service's account.
    const service = viemClients(chain, 0)
    const { abi, bytecode } = (await compileContracts(path.join(CONTRACTS_DIR, 'legacy'))).CredentialRegistryV1!
    const deployed = await service.publicClient.waitForTransactionReceipt({
      hash: await service.wallet.deployContract({ abi, bytecode }),
      pollingInterval: 20,
    })
    v1Registry = deployed.contractAddress as Address
    mined.tree = v1Tree(issuerKey, mined.hashes)
    pending.tree = v1Tree(issuerKey, pending.hashes)
    const anchor = await service.wallet.writeContract({
      address: v1Registry,
      abi: credentialRegistryAbi,
      functionName: 'anchorBatch',
      args: [mined.tree.root, 2],
    })
    const receipt = await service.publicClient.waitForTransactionReceipt({ hash: anchor, pollingInterval: 20 })
    ;[mined.tx, mined.block] = [anchor, receipt.blockNumber]

    t = await createTestApp({
      env: chainEnv(chain, deployment, 0, {
        BLOCKCHAIN_CREDENTIAL_REGISTRY_V1: v1Registry,
        BLOCKCHAIN_POLL_MS: '50',
        BLOCKCHAIN_BATCH_WAIT_MS: '150',
        OUTBOUND_TIMEOUT_MS: '2000',
      }),
    })
    issuerToken = await issuer.login(t.app)
    // The service's rows as the version before the upgrade left them, each set in one transaction.
    const db = t.deps.database.db
    const now = new Date()
    const writeBatch = async (set: typeof mined | typeof pending, job: Record<string, unknown>) =>
      db.transaction().execute(async (trx) => {
        const { id } = await trx
          .insertInto('chain_jobs')
          .values({
            kind: 'batch',
            subject_id: null,
            anchor_key: set.tree.root,
            payload: JSON.stringify({ root: set.tree.root, size: 2 }),
            next_attempt_at: now,
            created_at: now,
            ...job,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
        await trx
          .insertInto('chain_credentials')
          .values(
            set.hashes.map((h, i) => ({
              issuer_did: issuer.did,
              credential_hash: h,
              credential_id: null,
              leaf: set.tree.leaves[i]!,
              batch_job_id: id,
              leaf_index: i,
              proof: JSON.stringify(set.tree.proofs[i]),
              created_at: now,
            })),
          )
          .execute()
      })
    await writeBatch(mined, {
      status: 'mined',
      attempts: 1,
      tx_hash: mined.tx,
      block_number: mined.block.toString(),
      gas_used: '50000',
      sent_at: now,
      mined_at: now,
    })
    await writeBatch(pending, { status: 'pending', attempts: 0 })
    // A hash queued before the upgrade, not batched yet: its stored leaf is a version-1 leaf.
    const oldLeaf = keccak256(concat(['0x00', issuerKey, `0x${queuedHash}`]))
    await db
      .insertInto('chain_credentials')
      .values({
        issuer_did: issuer.did,
        credential_hash: queuedHash,
        credential_id: null,
        leaf: oldLeaf,
        created_at: now,
      })
      .execute()
    t.app.chainAnchor.nudge()
  })
  after(async () => {
    await t?.close()
    await chain?.stop()
  })

  const get = (url: string) => t.app.inject({ method: 'GET', url })
  const check = async (hash: string) =>
    (await get(`/api/blockchain/credential/check/${encodeURIComponent(issuer.did)}/${hash}`)).json().data
  const v1Read = (fn: 'batch' | 'batchedStatus', args: readonly unknown[]) =>
    viemClients(chain, 1).publicClient.readContract({
      address: v1Registry,
      abi: credentialRegistryAbi,
      functionName: fn,
      args,
    } as never) as Promise<readonly bigint[]>

  it('a version-1 batch anchored before the upgrade still verifies: its proof off chain, its root in the version-1 registry', async () => {
    const view = await check(mined.hashes[1])
    assert.equal(view.on_chain, true)
    assert.equal(view.chain.verified_on_chain, true, 'the version-1 registry accepted the stored proof')
    assert.equal(view.chain.contract, v1Registry)
    assert.equal(view.blockchain_tx_hash, mined.tx)
    assert.equal(view.merkle.format, 'legacy-v1')
    assert.equal(view.merkle.root, mined.tree.root)
    assert.deepEqual(view.merkle.proof, mined.tree.proofs[1])
    assert.equal(view.merkle.leaf_encoding, undefined, 'a version-1 leaf is no StandardMerkleTree leaf')
    const status = (await get('/api/blockchain/status')).json().data
    assert.equal(status.contracts.credential_registry_v1, v1Registry)
  })

  it('a version-1 batch formed but not sent before the upgrade is anchored in the version-1 registry, where its proofs hold', async () => {
    await waitFor(
      'the pending version-1 batch is mined',
      async () => (await check(pending.hashes[0])).anchoring === 'mined',
    )
    const view = await check(pending.hashes[0])
    assert.equal(view.on_chain, true)
    assert.equal(view.chain.verified_on_chain, true)
    assert.equal(view.chain.contract, v1Registry)
    assert.ok((await v1Read('batch', [viemClients(chain, 0).account.address, pending.tree.root]))[0]! > 0n)
  })

  it('revoking a credential of a version-1 batch is sent to the version-1 registry with its stored proof', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/blockchain/credential/revoke',
      headers: bearer(issuerToken),
      payload: { issuer_did: issuer.did, credential_hash: mined.hashes[0] },
    })
    assert.equal(res.statusCode, 200, res.body)
    await waitFor(
      'the revocation is mined',
      async () => (await check(mined.hashes[0])).revocation?.anchoring === 'mined',
    )
    const view = await check(mined.hashes[0])
    assert.equal(view.revoked, true)
    assert.equal(view.chain.verified_on_chain, true)
    const [, revokedAt] = await v1Read('batchedStatus', [
      viemClients(chain, 0).account.address,
      issuerKey,
      `0x${mined.hashes[0]}`,
      mined.tree.root,
      mined.tree.proofs[0],
    ])
    assert.ok(revokedAt! > 0n)
    assert.equal((await check(mined.hashes[1])).revoked, false, 'its batch neighbour is untouched')
  })

  it('a hash queued before the upgrade joins a standard batch in the current registry', async () => {
    await waitFor('the queued hash is mined', async () => (await check(queuedHash)).anchoring === 'mined')
    const view = await check(queuedHash)
    assert.equal(view.on_chain, true)
    assert.equal(view.chain.verified_on_chain, true)
    assert.equal(view.chain.contract, deployment.contracts.credentialRegistry)
    assert.equal(view.merkle.format, 'standard-v1')
    assert.equal(
      view.merkle.leaf,
      StandardMerkleTree.of([view.merkle.value], ['bytes32', 'bytes32']).leafHash(view.merkle.value),
      'the leaf was recomputed',
    )
    assert.ok(
      StandardMerkleTree.verify(view.merkle.root, view.merkle.leaf_encoding, view.merkle.value, view.merkle.proof),
    )
  })
})

describe('a version-1 registry left in BLOCKCHAIN_CREDENTIAL_REGISTRY', () => {
  let chain: DevChain
  let t: TestApp
  const lines: string[] = []

  before(async () => {
    let deployment: Deployment
    ;({ chain, deployment } = await startChainWithRegistries())
    const service = viemClients(chain, 0)
    const { abi, bytecode } = (await compileContracts(path.join(CONTRACTS_DIR, 'legacy'))).CredentialRegistryV1!
    const deployed = await service.publicClient.waitForTransactionReceipt({
      hash: await service.wallet.deployContract({ abi, bytecode }),
      pollingInterval: 20,
    })
    t = await createTestApp({
      env: chainEnv(chain, deployment, 0, {
        BLOCKCHAIN_CREDENTIAL_REGISTRY: deployed.contractAddress!,
        BLOCKCHAIN_POLL_MS: '50',
        BLOCKCHAIN_BATCH_WAIT_MS: '0',
        LOG_LEVEL: 'error',
      }),
      logSink: { write: (line) => void lines.push(line) },
    })
  })
  after(async () => {
    await t?.close()
    await chain?.stop()
  })

  it('holds new batches back (no transaction) and says why in the log', async () => {
    const issuer = new DidClient()
    const token = await issuer.login(t.app)
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/blockchain/credential/register',
      headers: bearer(token),
      payload: { issuer_did: issuer.did, credential_hash: hashHex() },
    })
    assert.equal(res.statusCode, 201, res.body)
    await waitFor('the refusal is logged', () => lines.some((l) => l.includes('version-1 registry')))
    await t.app.chainDispatcher!.runOnce()
    const jobs = await t.deps.database.db.selectFrom('chain_jobs').select(['kind', 'status', 'tx_hash']).execute()
    assert.deepEqual(jobs, [{ kind: 'batch', status: 'pending', tx_hash: null }])
    assert.equal(lines.filter((l) => l.includes('version-1 registry')).length, 1, 'reported once')
  })
})
