/**
 * The registries on a real EVM: contracts/*.sol compiled by solc-js, deployed to an EDR dev
 * chain started here, driven with viem from independent accounts. No service code is involved
 * except the Merkle tree builder, whose proofs the contract (OpenZeppelin's MerkleProof) and
 * OpenZeppelin's StandardMerkleTree must both accept.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { concat, keccak256, parseEventLogs, stringToBytes, type Abi, type Address, type Hex } from 'viem'
import { compileContracts, CONTRACTS_DIR, loadArtifacts } from '../../src/adapters/chain/contracts-build.js'
import { consentRegistryAbi, credentialRegistryAbi, schemaRegistryAbi } from '../../src/adapters/chain/registry-abis.js'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import { buildBatchTree, type BatchValue } from '../../src/modules/blockchain/merkle.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import { startChainWithRegistries, viemClients } from '../helpers/chain.js'

const hash32 = (): Hex => `0x${randomBytes(32).toString('hex')}`
const issuerId = (did: string): Hex => keccak256(stringToBytes(did))

/** Canonical text of an ABI entry list, order-independent. */
function abiSignature(abi: Abi): string[] {
  return abi
    .filter((e) => e.type === 'function' || e.type === 'event' || e.type === 'error')
    .map((e) => {
      const inputs =
        'inputs' in e ? e.inputs.map((i) => `${i.type}${'indexed' in i && i.indexed ? ' indexed' : ''}`).join(',') : ''
      const outputs = 'outputs' in e && e.outputs ? e.outputs.map((o) => o.type).join(',') : ''
      const mutability = 'stateMutability' in e ? e.stateMutability : ''
      return `${e.type} ${'name' in e ? e.name : ''}(${inputs}) ${mutability} (${outputs})`
    })
    .sort()
}

describe('chain registries on a dev chain', () => {
  let chain: DevChain
  let deployment: Deployment
  let service: ReturnType<typeof viemClients>
  let other: ReturnType<typeof viemClients>

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
    service = viemClients(chain, 0)
    other = viemClients(chain, 1)
  })
  after(async () => chain?.stop())

  const registry = () => ({ address: deployment.contracts.credentialRegistry, abi: credentialRegistryAbi })

  async function send(
    client: ReturnType<typeof viemClients>,
    request: Parameters<typeof client.publicClient.simulateContract>[0],
  ) {
    const { request: prepared } = await client.publicClient.simulateContract({
      ...request,
      account: client.account,
    } as never)
    const hash = await client.wallet.writeContract(prepared as never)
    return client.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }

  it('the hand-written ABIs are exactly what solc compiles from contracts/', async () => {
    const artifacts = await loadArtifacts()
    assert.deepEqual(abiSignature(credentialRegistryAbi), abiSignature(artifacts.CredentialRegistry.abi))
    assert.deepEqual(abiSignature(schemaRegistryAbi), abiSignature(artifacts.SchemaRegistry.abi))
    assert.deepEqual(abiSignature(consentRegistryAbi), abiSignature(artifacts.ConsentRegistry.abi))
  })

  it('register, check, revoke, check again; only the registrant may revoke; events for every change', async () => {
    const issuer = issuerId('did:example:issuer-1')
    const credentialHash = hash32()
    const status = () =>
      service.publicClient.readContract({
        ...registry(),
        functionName: 'status',
        args: [service.account.address, issuer, credentialHash],
      })
    assert.deepEqual(await status(), [0n, 0n])

    const registered = await send(service, { ...registry(), functionName: 'register', args: [issuer, credentialHash] })
    const [event] = parseEventLogs({
      abi: credentialRegistryAbi,
      logs: registered.logs,
      eventName: 'CredentialRegistered',
    })
    assert.equal(event?.args.registrant, service.account.address)
    assert.equal(event?.args.credentialHash, credentialHash)
    const [registeredAt, notRevoked] = await status()
    assert.ok(registeredAt > 0n)
    assert.equal(notRevoked, 0n)

    // Repeating is a no-op without an event (the outbox may resend).
    const again = await send(service, { ...registry(), functionName: 'register', args: [issuer, credentialHash] })
    assert.equal(again.logs.length, 0)

    // Another account cannot revoke it: it registered nothing in its own namespace.
    await assert.rejects(
      send(other, { ...registry(), functionName: 'revoke', args: [issuer, credentialHash] }),
      /NotRegistered/,
    )

    const revoked = await send(service, { ...registry(), functionName: 'revoke', args: [issuer, credentialHash] })
    assert.equal(
      parseEventLogs({ abi: credentialRegistryAbi, logs: revoked.logs, eventName: 'CredentialRevoked' }).length,
      1,
    )
    const [, revokedAt] = await status()
    assert.ok(revokedAt >= registeredAt)
    // The other account's namespace shows nothing at all.
    assert.deepEqual(
      await service.publicClient.readContract({
        ...registry(),
        functionName: 'status',
        args: [other.account.address, issuer, credentialHash],
      }),
      [0n, 0n],
    )
  })

  it('anchors 1,000 hashes in one transaction; every inclusion proof verifies, on chain too; batched revocation needs a valid proof', async (t) => {
    const issuer = issuerId('did:example:batch-issuer')
    const hashes = Array.from({ length: 1000 }, hash32)
    const values = hashes.map((h): BatchValue => [issuer, h])
    const tree = buildBatchTree(values)
    // The build held the event loop, with the in-process chain's keep-alive timers in it: let
    // them close their idle sockets before the next call picks one.
    await new Promise((resolve) => setTimeout(resolve, 20))
    // The contract's leaf is StandardMerkleTree's; every proof verifies with StandardMerkleTree.
    assert.equal(
      await service.publicClient.readContract({ ...registry(), functionName: 'leaf', args: [issuer, hashes[0]!] }),
      tree.leaves[0],
    )
    for (let i = 0; i < values.length; i++)
      assert.ok(StandardMerkleTree.verify(tree.root, ['bytes32', 'bytes32'], values[i]!, tree.proofs[i]!), `proof ${i}`)
    await new Promise((resolve) => setTimeout(resolve, 20))

    const receipt = await send(service, { ...registry(), functionName: 'anchorBatch', args: [tree.root, 1000] })
    assert.equal(receipt.status, 'success')
    const batchGas = receipt.gasUsed
    const [anchoredAt, size] = await service.publicClient.readContract({
      ...registry(),
      functionName: 'batch',
      args: [service.account.address, tree.root],
    })
    assert.ok(anchoredAt > 0n)
    assert.equal(size, 1000)

    // A sample of proofs checked by the contract (all 1,000 locally above).
    for (const i of [0, 1, 499, 511, 512, 998, 999]) {
      const [at, revokedAt] = await service.publicClient.readContract({
        ...registry(),
        functionName: 'batchedStatus',
        args: [service.account.address, issuer, hashes[i]!, tree.root, tree.proofs[i]!],
      })
      assert.equal(at, anchoredAt, `on-chain proof ${i}`)
      assert.equal(revokedAt, 0n)
    }
    // The contract's own inclusion check (OpenZeppelin MerkleProof) accepts the proof, and no other.
    const inclusion = (i: number, proof: readonly Hex[]) =>
      service.publicClient.readContract({
        ...registry(),
        functionName: 'verifyInclusion',
        args: [tree.root, issuer, hashes[i]!, proof],
      })
    assert.equal(await inclusion(3, tree.proofs[3]!), true)
    assert.equal(await inclusion(3, tree.proofs[4]!), false)
    assert.equal(await inclusion(3, [...tree.proofs[3]!.slice(0, -1), hash32()]), false)
    // A proof of another leaf, or a hash not in the batch, does not verify.
    const [forged] = await service.publicClient.readContract({
      ...registry(),
      functionName: 'batchedStatus',
      args: [service.account.address, issuer, hashes[0]!, tree.root, tree.proofs[1]!],
    })
    assert.equal(forged, 0n)
    const [stranger] = await service.publicClient.readContract({
      ...registry(),
      functionName: 'batchedStatus',
      args: [service.account.address, issuer, hash32(), tree.root, tree.proofs[0]!],
    })
    assert.equal(stranger, 0n)

    // Revoking one batched credential: the registrant with the proof; nobody else.
    await assert.rejects(
      send(other, {
        ...registry(),
        functionName: 'revokeBatched',
        args: [issuer, hashes[7]!, tree.root, tree.proofs[7]!],
      }),
      /NotRegistered/,
    )
    await assert.rejects(
      send(service, {
        ...registry(),
        functionName: 'revokeBatched',
        args: [issuer, hashes[7]!, tree.root, tree.proofs[8]!],
      }),
      /NotRegistered/,
    )
    await send(service, {
      ...registry(),
      functionName: 'revokeBatched',
      args: [issuer, hashes[7]!, tree.root, tree.proofs[7]!],
    })
    const [, revokedAt] = await service.publicClient.readContract({
      ...registry(),
      functionName: 'batchedStatus',
      args: [service.account.address, issuer, hashes[7]!, tree.root, tree.proofs[7]!],
    })
    assert.ok(revokedAt > 0n)

    // Gas: one batch against single registrations (each costs the same; 20 are measured).
    let singleGas = 0n
    for (const h of hashes.slice(0, 20))
      singleGas += (await send(service, { ...registry(), functionName: 'register', args: [issuer, h] })).gasUsed
    const perSingle = singleGas / 20n
    t.diagnostic(
      `gas: anchorBatch(1000) = ${batchGas}; register() = ${perSingle} each, ~${perSingle * 1000n} for 1,000 (${Number((perSingle * 1000n) / batchGas)}x)`,
    )
    assert.ok(batchGas * 100n < perSingle * 1000n, 'a batch costs under 1% of single registrations')
  })

  it('a version-1 registry (contracts/legacy) still answers for its roots with version-1 proofs, and not for standard ones', async () => {
    const legacy = await compileContracts(path.join(CONTRACTS_DIR, 'legacy'))
    const { abi, bytecode } = legacy.CredentialRegistryV1!
    const deployed = await service.publicClient.waitForTransactionReceipt({
      hash: await service.wallet.deployContract({ abi, bytecode }),
      pollingInterval: 20,
    })
    const v1 = { address: deployed.contractAddress as Address, abi: credentialRegistryAbi }
    // A two-leaf version-1 tree, from its definition (docs/blockchain.md "Version-1 batches").
    const issuer = issuerId('did:example:old-issuer')
    const [h0, h1] = [hash32(), hash32()]
    const [l0, l1] = [h0, h1].map((h) => keccak256(concat(['0x00', issuer, h]))) as [Hex, Hex]
    const root = keccak256(concat(l0 < l1 ? ['0x01', l0, l1] : ['0x01', l1, l0]))
    await send(service, { ...v1, functionName: 'anchorBatch', args: [root, 2] })
    const [at] = await service.publicClient.readContract({
      ...v1,
      functionName: 'batchedStatus',
      args: [service.account.address, issuer, h0, root, [l1]],
    })
    assert.ok(at > 0n)
    const standard = buildBatchTree([
      [issuer, h0],
      [issuer, h1],
    ])
    await send(service, { ...v1, functionName: 'anchorBatch', args: [standard.root, 2] })
    const [none] = await service.publicClient.readContract({
      ...v1,
      functionName: 'batchedStatus',
      args: [service.account.address, issuer, h0, standard.root, standard.proofs[0]!],
    })
    assert.equal(none, 0n, 'the version-1 registry cannot check a standard proof: new batches need the new registry')
  })

  it('schema registry: versions, issuer binding, events', async () => {
    const schemas = { address: deployment.contracts.schemaRegistry, abi: schemaRegistryAbi }
    const schemaId = keccak256(stringToBytes('schema-degree'))
    const issuer = issuerId('did:example:uni')
    const v1 = hash32()
    const v2 = hash32()
    const r1 = await send(service, { ...schemas, functionName: 'register', args: [schemaId, issuer, v1] })
    assert.equal(
      parseEventLogs({ abi: schemaRegistryAbi, logs: r1.logs, eventName: 'SchemaRegistered' })[0]?.args.version,
      1,
    )
    assert.equal(
      (await send(service, { ...schemas, functionName: 'register', args: [schemaId, issuer, v1] })).logs.length,
      0,
    )
    await send(service, { ...schemas, functionName: 'register', args: [schemaId, issuer, v2] })
    const [gotIssuer, latest, , versions] = await service.publicClient.readContract({
      ...schemas,
      functionName: 'schema',
      args: [service.account.address, schemaId],
    })
    assert.equal(gotIssuer, issuer)
    assert.equal(latest, v2)
    assert.equal(versions, 2)
    assert.ok(
      (await service.publicClient.readContract({
        ...schemas,
        functionName: 'versionRegisteredAt',
        args: [service.account.address, schemaId, v1],
      })) > 0n,
    )
    await assert.rejects(
      send(service, {
        ...schemas,
        functionName: 'register',
        args: [schemaId, issuerId('did:example:other'), hash32()],
      }),
      /IssuerMismatch/,
    )
  })

  it('consent registry: grant, check, revoke, check, grant again; expiry; only the granter revokes', async () => {
    const consents = { address: deployment.contracts.consentRegistry, abi: consentRegistryAbi }
    const key = hash32()
    const check = (registrant = service.account.address) =>
      service.publicClient.readContract({ ...consents, functionName: 'check', args: [registrant, key] })
    assert.equal((await check())[0], false)
    const granted = await send(service, { ...consents, functionName: 'grant', args: [key, 0n] })
    assert.equal(parseEventLogs({ abi: consentRegistryAbi, logs: granted.logs, eventName: 'ConsentGranted' }).length, 1)
    assert.equal((await check())[0], true)
    await assert.rejects(send(other, { ...consents, functionName: 'revoke', args: [key] }), /NotGranted/)
    const revoked = await send(service, { ...consents, functionName: 'revoke', args: [key] })
    assert.equal(parseEventLogs({ abi: consentRegistryAbi, logs: revoked.logs, eventName: 'ConsentRevoked' }).length, 1)
    const [valid, , , revokedAt] = await check()
    assert.equal(valid, false)
    assert.ok(revokedAt > 0n)
    await send(service, { ...consents, functionName: 'grant', args: [key, 0n] })
    assert.equal((await check())[0], true)

    const expiring = hash32()
    const block = await service.publicClient.getBlock()
    await send(service, { ...consents, functionName: 'grant', args: [expiring, block.timestamp + 60n] })
    assert.equal(
      (
        await service.publicClient.readContract({
          ...consents,
          functionName: 'check',
          args: [service.account.address, expiring],
        })
      )[0],
      true,
    )
    await chain.request('evm_increaseTime', [120])
    await chain.request('evm_mine', [])
    assert.equal(
      (
        await service.publicClient.readContract({
          ...consents,
          functionName: 'check',
          args: [service.account.address, expiring],
        })
      )[0],
      false,
    )
  })
})
