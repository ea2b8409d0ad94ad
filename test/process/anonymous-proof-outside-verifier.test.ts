/**
 * A derived proof verified by someone who has only @docknetwork/crypto-wasm-ts and the public
 * recipe (docs/anonymous-proofs.md): a child process runs test/external/verify-anonymous-proof.mjs,
 * which imports nothing of the service, on the proof as derived over HTTP and the issuer's
 * verification method as its DID document serves it. One derivation (two bounds, every encoding
 * revealed once); the tampered variants cost a verification each.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCRIPT = path.resolve(import.meta.dirname, '../external/verify-anonymous-proof.mjs')
// Every encoding a disclosed value can take: text, number, boolean, date, object, absent.
const TYPES = {
  given_name: 'string',
  nationality: 'string',
  age: 'number',
  birth_date: 'date',
  height: 'number',
  verified: 'boolean',
  member_since: 'date',
  address: 'object',
  nickname: 'string',
}
const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: Object.entries(TYPES).map(([name, data_type]) => ({ name, data_type, required: name !== 'nickname' })),
}
const ATTRS = {
  given_name: 'Ada',
  nationality: 'GB',
  age: 36,
  birth_date: '1990-12-10',
  height: 1.7254,
  verified: true,
  member_since: '2019-03-01',
  address: { street: 'Main St 1', city: 'Zürich' },
}

describe('anonymous proofs: verified in a process that has only the library', () => {
  let t: TestApp
  let dir: string
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let proof: Json
  let method: Json

  /** The script's verdicts, one per check, in order. */
  const verifyOutside = async (checks: Json[]): Promise<string[]> => {
    const files = await Promise.all(
      checks.map(async (check, i) => {
        const file = path.join(dir, `check-${i}.json`)
        await writeFile(file, JSON.stringify(check))
        return file
      }),
    )
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, ...files], { timeout: 120_000 })
    return stdout.trim().split('\n')
  }

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'outside-verifier-'))
    t = await createTestApp()
    await issuer.setUp(t.app, 'Registry')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const holderToken = await holder.login(t.app)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: ATTRS,
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const derived = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${issued.json().credential.id}/anonymous-proof`,
      holderToken,
      {
        reveal: ['nationality', 'height', 'verified', 'member_since', 'address', 'nickname'],
        predicates: [
          { attribute: 'age', operator: '>=', value: 18 },
          { attribute: 'birth_date', operator: '<=', value: '2008-11-22' },
        ],
        nonce: 'nonce-outside-1',
        verifier_did: verifier.did,
      },
    )
    assert.equal(derived.statusCode, 200, derived.body)
    proof = derived.json().proof
    // The key is published by the DID the proof names (the issuer's signing did:web), not the login DID.
    const resolved = (await callAs(t.app, 'GET', `/api/did/${proof.verification_method.split('#')[0]}`)).json()
    method = (resolved.didDocument ?? resolved).verificationMethod.find((m: Json) => m.id === proof.verification_method)
    assert.ok(method, "the DID document serves the proof's verification method")
  })
  after(async () => {
    await t?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('the script imports nothing but the library and Node builtins', async () => {
    const source = await readFile(SCRIPT, 'utf8')
    const imports = [...source.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1]!)
    assert.ok(imports.length > 0)
    for (const specifier of imports)
      assert.ok(specifier === '@docknetwork/crypto-wasm-ts' || specifier.startsWith('node:'), specifier)
  })

  it('prints verified=true for the proof, false for tampered disclosures or bounds, another nonce or verifier, another key', async () => {
    assert.deepEqual(proof.revealed, {
      address: ATTRS.address,
      height: 1.7254,
      member_since: '2019-03-01',
      nationality: 'GB',
      nickname: null,
      verified: true,
    })
    const check = { proof, verification_method: method, nonce: 'nonce-outside-1', verifier_did: verifier.did }
    const flipped = Buffer.from(proof.proof_value, 'base64url')
    flipped[flipped.length - 40]! ^= 1
    const other = new IssuerActor()
    await other.setUp(t.app, 'Another registry')
    const otherSigning = (await callAs(t.app, 'GET', `/api/issuer/${other.did}/signing`, other.token)).json()
    const otherDocument = (await callAs(t.app, 'GET', `/api/did/${otherSigning.signing_did}`)).json()
    const otherKey = (otherDocument.didDocument ?? otherDocument).verificationMethod.find(
      (m: Json) => m.bbsScheme === method.bbsScheme,
    )
    assert.ok(otherKey)
    const verdicts = await verifyOutside([
      check,
      { ...check, nonce: 'nonce-outside-2' },
      { ...check, verifier_did: 'did:example:another-verifier' },
      { ...check, proof: { ...proof, revealed: { ...proof.revealed, nationality: 'FR' } } },
      { ...check, proof: { ...proof, revealed: { ...proof.revealed, height: 1.7255 } } },
      {
        ...check,
        proof: { ...proof, bounds: [{ ...proof.bounds[0], min: proof.bounds[0].min + 1_000_000 }, proof.bounds[1]] },
      },
      { ...check, proof: { ...proof, proof_value: flipped.toString('base64url') } },
      { ...check, verification_method: { ...method, publicKeyMultibase: otherKey.publicKeyMultibase } },
    ])
    assert.deepEqual(verdicts, ['verified=true', ...new Array(7).fill('verified=false')])
  })
})
