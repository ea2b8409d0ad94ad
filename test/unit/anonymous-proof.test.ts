import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import {
  boundsFor,
  DISCLOSED_META,
  metaIndex,
  predicateBound,
  proofNonce,
  RANGE_PARAMS_LABEL,
  RANGE_PROOF_PROTOCOL,
  RETIRED_RANGE_PROOF_PROTOCOL,
} from '../../src/crypto/bbs/anonymous-proof-format.js'
import * as core from '../../src/crypto/bbs/bbs-core.js'
import { bbsVerificationMethodFields } from '../../src/crypto/bbs/bbs-key-text.js'
import {
  BBS_MESSAGE_LAYOUT,
  credentialMessages,
  encodeIntegerValue,
  messageIndex,
  type AnonCredentialContent,
} from '../../src/crypto/bbs/bbs-messages.js'
import type { BbsEngine } from '../../src/crypto/bbs/bbs-pool.js'
import { UnprocessableError, ValidationError } from '../../src/errors.js'
import type { DidResolver } from '../../src/modules/did/did-resolver.js'
import {
  deriveAnonymousProof,
  type StoredAnonymousCredential,
} from '../../src/modules/presentation/anonymous-proof.service.js'
import {
  createDerivedProofVerifier,
  RETIRED_PROOF_ERROR,
} from '../../src/modules/presentation/derived-proof-verifier.js'
import { unmetRequirements } from '../../src/modules/presentation/presentation-requirements.js'

const ISSUER = 'did:example:issuer'
const HOLDER = 'did:example:holder'
const VERIFIER = 'did:example:verifier'
const LABEL = `credential-service/bbs-params/v1/${ISSUER}`
const KID = `${ISSUER}#bbs-1`

/** bbs-core on this thread, behind the pool's interface: the same code the workers run. */
const inline: BbsEngine = {
  generateKeyPair: async (label) => core.generateKeyPair(label),
  sign: async (r) => core.sign(r.secretKey, r.paramsLabel, r.messages),
  verify: async (r) => core.verify(r.publicKey, r.paramsLabel, r.messages, r.signature),
  deriveProof: async (r) => core.deriveProof(r),
  verifyProof: async (r) => core.verifyProof(r),
  close: async () => {},
}

const content: AnonCredentialContent = {
  meta: {
    id: 'aly:1',
    type: 'Identity',
    issuer: ISSUER,
    subject: HOLDER,
    schema_id: 's-1',
    issued_at: '2026-11-22T12:00:00.000Z',
    status: 'http://service.test/api/status-lists/l1#42',
  },
  attributes: { given_name: 'Ada', nationality: 'GB', age: 36, birth_date: '1990-12-10' },
  types: { given_name: 'string', nationality: 'string', age: 'number', birth_date: 'date' },
}

/**
 * The crypto of derived proofs end to end, without a database: real proofs with Bulletproofs++
 * bound checks (two derivations: one bound, two bounds), then the verifier
 * (derived-proof-verifier.ts) against a DID document built from the published method fields.
 * Verifications of tampered variants fail inside the composite proof's verification itself.
 */
describe('anonymous proofs: derive and verify (BBS + Bulletproofs++ bound checks)', () => {
  let stored: StoredAnonymousCredential
  let publicKey: Uint8Array
  let resolver: DidResolver
  let proof: Record<string, unknown>
  const verifyWith = (r: DidResolver = resolver) =>
    createDerivedProofVerifier({ resolver: r, bbs: inline, clock: { now: () => new Date('2026-12-01T00:00:00Z') } })
  const ctx = { nonce: 'nonce-1', verifierDid: VERIFIER, holderDid: HOLDER }
  const documentFor = (fields: Record<string, unknown>): DidResolver => ({
    legacyAssertionMethod: async () => undefined,
    resolve: async (did) => ({
      didDocument: {
        id: did,
        verificationMethod: [{ id: KID, controller: did, ...fields }],
        assertionMethod: [KID],
      } as never,
      didResolutionMetadata: { contentType: 'application/did+json' },
      didDocumentMetadata: {},
    }),
  })

  before(async () => {
    await core.initBbs()
    const pair = core.generateKeyPair(LABEL)
    publicKey = pair.publicKey
    const signature = core.sign(pair.secretKey, LABEL, credentialMessages(content))
    stored = {
      layout: BBS_MESSAGE_LAYOUT,
      verification_method: KID,
      params_label: LABEL,
      content,
      signature: Buffer.from(signature).toString('base64url'),
    }
    resolver = documentFor(JSON.parse(JSON.stringify(bbsVerificationMethodFields(publicKey, LABEL))))
    const key = { issuer: ISSUER, publicKey, paramsLabel: LABEL, rangeParamsLabel: RANGE_PARAMS_LABEL }
    proof = (await deriveAnonymousProof(inline, stored, key, {
      reveal: ['nationality'],
      predicates: [{ attribute: 'age', operator: '>=', value: 18 }],
      nonce: ctx.nonce,
      verifier_did: VERIFIER,
    })) as unknown as Record<string, unknown>
  })

  it('derives a proof the verifier accepts from the DID document alone, with the bound it proves', async () => {
    const checked = await verifyWith()(proof, ctx)
    assert.deepEqual(checked.errors, [])
    assert.equal(checked.valid, true)
    assert.deepEqual(checked.revealed, { nationality: 'GB' })
    assert.deepEqual(checked.bounds, [
      { attribute: 'age', dataType: 'number', min: encodeIntegerValue('number', 18), maxExclusive: 2 ** 50 },
    ])
    assert.deepEqual(checked.statusEntry, {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '42',
      statusListCredential: 'http://service.test/api/status-lists/l1',
    })
    // The proven interval meets weaker requirements, not stronger ones.
    const presented = [
      {
        id: 'aly:1',
        format: 'bbs_derived' as const,
        issuer: ISSUER,
        types: ['Identity'],
        schemaIds: [],
        attributes: checked.revealed,
        provenPredicates: checked.predicates,
        provenBounds: checked.bounds,
        revoked: false,
        valid: true,
      },
    ]
    assert.deepEqual(unmetRequirements(presented, [], [{ attribute: 'age', operator: '>', value: 17.5 }]), [])
    assert.deepEqual(unmetRequirements(presented, [], [{ attribute: 'age', operator: '>=', value: 21 }]), [
      'predicate age >= 21 was not proven',
    ])
  })

  it('fails for a tampered revealed value, layout or status, another nonce or verifier, another holder', async () => {
    const verify = verifyWith()
    const variants: Array<[string, Record<string, unknown>, typeof ctx, RegExp]> = [
      ['revealed value', { ...proof, revealed: { nationality: 'FR' } }, ctx, /does not verify/],
      [
        'status index',
        {
          ...proof,
          credential_status: {
            ...(proof.credential_status as object),
            id: 'http://service.test/api/status-lists/l1#7',
            statusListIndex: '7',
          },
        },
        ctx,
        /does not verify/,
      ],
      ['attribute names swapped', { ...proof, revealed: { given_name: 'GB' } }, ctx, /does not verify/],
      ['nonce field edited', { ...proof, nonce: 'nonce-2' }, { ...ctx, nonce: 'nonce-2' }, /does not verify/],
      ['another nonce', proof, { ...ctx, nonce: 'nonce-2' }, /another nonce/],
      ['another verifier', proof, { ...ctx, verifierDid: 'did:example:other' }, /another verifier/],
      ['another holder', proof, { ...ctx, holderDid: 'did:example:thief' }, /another subject/],
      [
        'weaker bound claimed',
        { ...proof, predicates: [{ attribute: 'age', operator: '>=', value: 30 }] },
        ctx,
        /bounds do not match/,
      ],
    ]
    for (const [label, variant, context, error] of variants) {
      const checked = await verify(variant, context)
      assert.equal(checked.valid, false, label)
      assert.match(checked.errors.join('; '), error, label)
    }
  })

  it('proves two bounds in one composite proof, which fails with its bounds swapped, dropped or edited, or its proof from another derivation', async () => {
    const verify = verifyWith()
    assert.deepEqual(proof.range_proof, { protocol: RANGE_PROOF_PROTOCOL, params_label: RANGE_PARAMS_LABEL })
    const twoBounds = (await deriveAnonymousProof(
      inline,
      stored,
      { issuer: ISSUER, publicKey, paramsLabel: LABEL, rangeParamsLabel: RANGE_PARAMS_LABEL },
      {
        reveal: [],
        predicates: [
          { attribute: 'age', operator: '>=', value: 18 },
          { attribute: 'birth_date', operator: '<', value: '2000-01-01' },
        ],
        nonce: ctx.nonce,
        verifier_did: VERIFIER,
      },
    )) as unknown as Record<string, unknown> & { proof_value: string }
    assert.deepEqual(twoBounds.range_proof, proof.range_proof)
    assert.equal((await verify(twoBounds, ctx)).valid, true)
    // At the crypto layer: the same proof against other bounds, or with one bound left out.
    const messages = credentialMessages(content)
    const age = { index: messageIndex(content, 'age'), min: encodeIntegerValue('number', 18), maxExclusive: 2 ** 50 }
    const birth = {
      index: messageIndex(content, 'birth_date'),
      min: 0,
      maxExclusive: encodeIntegerValue('date', '2000-01-01'),
    }
    const revealed = DISCLOSED_META.map((name) => ({ index: metaIndex(name), message: messages[metaIndex(name)]! }))
    const base = {
      proof: Buffer.from(twoBounds.proof_value, 'base64url'),
      messageCount: messages.length,
      revealed,
      publicKey,
      paramsLabel: LABEL,
      nonce: proofNonce(ctx.nonce, VERIFIER),
      rangeParamsLabel: RANGE_PARAMS_LABEL,
    }
    assert.equal(core.verifyProof({ ...base, bounds: [age, birth] }), true)
    assert.equal(core.verifyProof({ ...base, bounds: [birth, age] }), false, 'bounds swapped')
    assert.equal(core.verifyProof({ ...base, bounds: [age] }), false, 'one dropped')
    assert.equal(
      core.verifyProof({ ...base, bounds: [age, { ...birth, maxExclusive: birth.maxExclusive - 1 }] }),
      false,
      'a narrower bound claimed',
    )

    const flipped = Buffer.from(proof.proof_value as string, 'base64url')
    flipped[flipped.length - 40]! ^= 1
    const variants: Array<[string, Record<string, unknown>, RegExp]> = [
      ['no range proof', { ...proof, range_proof: null }, /carry no range proof/],
      ['a bit edited', { ...proof, proof_value: flipped.toString('base64url') }, /does not verify/],
      ['from another derivation', { ...proof, proof_value: twoBounds.proof_value }, /does not verify/],
    ]
    for (const [label, variant, error] of variants) {
      const checked = await verify(variant, ctx)
      assert.equal(checked.valid, false, label)
      assert.match(checked.errors.join('; '), error, label)
    }
  })

  it(`refuses a proof made with the retired ${RETIRED_RANGE_PROOF_PROTOCOL} range proof, with a clear error`, async () => {
    const retired = {
      ...proof,
      range_proof: {
        protocol: RETIRED_RANGE_PROOF_PROTOCOL,
        params_label: 'credential-service/range-bits/v1',
        proofs: ['AAAA'],
      },
    }
    const checked = await verifyWith()(retired, ctx)
    assert.equal(checked.valid, false)
    assert.deepEqual(checked.errors, [RETIRED_PROOF_ERROR])
    assert.match(RETIRED_PROOF_ERROR, /no longer verifies: the holder must derive a new proof/)
  })

  it('fails with params from another label: BBS params or range-proof generators', async () => {
    const otherLabel = documentFor({
      ...JSON.parse(JSON.stringify(bbsVerificationMethodFields(publicKey, LABEL))),
      bbsRangeProof: { protocol: RANGE_PROOF_PROTOCOL, paramsLabel: 'another-label' },
    })
    // Published as today: the issuer's method names Bulletproofs++ and the deployment's label.
    assert.deepEqual(bbsVerificationMethodFields(publicKey, LABEL).bbsRangeProof, {
      protocol: 'Bulletproofs++',
      paramsLabel: 'credential-service/bpp-params/v1',
    })
    const published = await verifyWith(otherLabel)(proof, ctx)
    assert.match(published.errors.join('; '), /range-proof params are not the ones the issuer publishes/)
    const relabelled = await verifyWith(otherLabel)(
      { ...proof, range_proof: { ...(proof.range_proof as object), params_label: 'another-label' } },
      ctx,
    )
    assert.match(relabelled.errors.join('; '), /does not verify/)
    // Directly at the crypto layer: the proof checked with other Bulletproofs++ generators or other BBS params.
    const messages = credentialMessages(content)
    const base = {
      proof: Buffer.from(proof.proof_value as string, 'base64url'),
      messageCount: messages.length,
      revealed: [...DISCLOSED_META.map(metaIndex), messageIndex(content, 'nationality')].map((index) => ({
        index,
        message: messages[index]!,
      })),
      bounds: [{ index: messageIndex(content, 'age'), min: encodeIntegerValue('number', 18), maxExclusive: 2 ** 50 }],
      publicKey,
      paramsLabel: LABEL,
      nonce: proofNonce(ctx.nonce, VERIFIER),
      rangeParamsLabel: RANGE_PARAMS_LABEL,
    }
    assert.equal(core.verifyProof(base), true)
    assert.equal(core.verifyProof({ ...base, rangeParamsLabel: 'another-label' }), false)
    assert.equal(core.verifyProof({ ...base, paramsLabel: `${LABEL}/other` }), false)
  })

  it('cannot prove a bound that does not hold: refused before proving (422), and by the crypto layer', async () => {
    const key = { issuer: ISSUER, publicKey, paramsLabel: LABEL, rangeParamsLabel: RANGE_PARAMS_LABEL }
    await assert.rejects(
      deriveAnonymousProof(inline, stored, key, {
        reveal: [],
        predicates: [{ attribute: 'birth_date', operator: '<', value: '1990-12-10' }],
        nonce: 'n',
        verifier_did: VERIFIER,
      }),
      UnprocessableError,
    )
    await assert.rejects(
      deriveAnonymousProof(inline, stored, key, {
        reveal: ['age'],
        predicates: [{ attribute: 'age', operator: '>=', value: 1 }],
        nonce: 'n',
        verifier_did: VERIFIER,
      }),
      ValidationError,
    )
    const messages = credentialMessages(content)
    const impossible = [
      { index: messageIndex(content, 'age'), min: encodeIntegerValue('number', 37), maxExclusive: 2 ** 50 },
    ]
    assert.throws(
      () =>
        core.deriveProof({
          publicKey,
          paramsLabel: LABEL,
          messages,
          signature: Buffer.from(stored.signature, 'base64url'),
          reveal: [],
          bounds: impossible,
          nonce: proofNonce('n', VERIFIER),
        }),
      /does not satisfy/,
    )
  })

  it('maps predicates to bounds on the encoded value: strict and non-strict, dates as YYYY-MM-DD or days since 1970', () => {
    const n18 = encodeIntegerValue('number', 18)
    assert.deepEqual(predicateBound('number', { attribute: 'a', operator: '>', value: 18 }), {
      min: n18 + 1,
      maxExclusive: 2 ** 50,
    })
    assert.deepEqual(predicateBound('number', { attribute: 'a', operator: '<', value: 18 }), {
      min: 0,
      maxExclusive: n18,
    })
    const d = encodeIntegerValue('date', '2008-11-22')
    assert.deepEqual(predicateBound('date', { attribute: 'd', operator: '<=', value: '2008-11-22' }), {
      min: 0,
      maxExclusive: d + 1,
    })
    assert.deepEqual(
      predicateBound('date', {
        attribute: 'd',
        operator: '<=',
        value: Date.parse('2008-11-22T00:00:00Z') / 86_400_000,
      }),
      { min: 0, maxExclusive: d + 1 },
    )
    // Two predicates on one attribute share one bound check: their intersection.
    assert.deepEqual(
      boundsFor(
        [
          { attribute: 'a', operator: '>=', value: 18 },
          { attribute: 'a', operator: '<', value: 65 },
        ],
        () => 'number',
      ),
      [{ attribute: 'a', min: n18, max_exclusive: encodeIntegerValue('number', 65) }],
    )
    assert.throws(() => predicateBound('date', { attribute: 'd', operator: '<=', value: 1.5 }), RangeError)
  })
})
