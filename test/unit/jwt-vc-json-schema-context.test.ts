/**
 * A schema's VCDM 1.1 context (schemaContextV1, what `jwt_vc_json` names after the VCDM 1.1 and
 * Bitstring Status List contexts), checked with jsonld's safe expansion against those contexts as
 * their packages publish them: attribute names that are VCDM terms, types that are not plain words.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contexts as credentialContexts } from '@digitalbazaar/credentials-context'
import { contexts as statusContexts } from '@digitalbazaar/vc-bitstring-status-list-context'
import jsonld from 'jsonld'
import { schemaContextV1, VCDM1_CREDENTIAL_TERMS, VCDM1_TERMS } from '../../src/modules/issuer/schema-documents.js'

// Expanded JSON-LD read at named IRIs.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const BASE = 'https://issuer.example'
const V1 = 'https://www.w3.org/2018/credentials/v1'
const STATUS_V1 = 'https://www.w3.org/ns/credentials/status/v1'
const CRED = 'https://www.w3.org/2018/credentials#'
const VOCAB = `${BASE}/api/schemas/schema-1/vocab#`
const attribute = (name: string, data_type: string) => ({ name, data_type, description: '', required: false })
const schema = {
  id: 'schema-1',
  name: 'Card',
  description: '',
  version: '1',
  attributes: [
    attribute('name', 'string'),
    attribute('issuer', 'string'),
    attribute('expirationDate', 'date'),
    attribute('level', 'number'),
  ],
}
const terms = (context: unknown) => Object.keys((context as Json)['@context']).filter((k) => !k.startsWith('@'))

const expand = (type: string, subject: Json) => {
  const url = `${BASE}/ctx`
  const known = new Map<string, unknown>([...credentialContexts, ...statusContexts])
  const documentLoader = async (u: string) => {
    const document = u === url ? schemaContextV1(schema, BASE, type) : known.get(u)!
    return { contextUrl: undefined, documentUrl: u, document: structuredClone(document) }
  }
  const credential = {
    '@context': [V1, STATUS_V1, url],
    id: 'urn:uuid:1',
    type: ['VerifiableCredential', type],
    issuer: 'did:example:issuer',
    issuanceDate: '2026-01-01T00:00:00Z',
    expirationDate: '2027-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', ...subject },
    credentialSchema: { id: `${BASE}/api/schemas/schema-1/json-schema.json`, type: 'JsonSchema' },
  }
  return jsonld.expand(credential, { documentLoader, safe: true } as unknown as Parameters<typeof jsonld.expand>[1])
}

describe('the VCDM 1.1 schema context', () => {
  it('leaves the protected top-level terms of the VCDM 1.1 and status contexts to them; the credential-scoped ones are known', () => {
    const v1 = credentialContexts.get(V1)!
    assert.deepEqual(
      [...VCDM1_TERMS].sort(),
      [...new Set([...terms(v1), ...terms(statusContexts.get(STATUS_V1))])].sort(),
    )
    const scoped = terms((v1['@context'] as Json).VerifiableCredential).filter((t) => !VCDM1_TERMS.has(t))
    assert.deepEqual([...VCDM1_CREDENTIAL_TERMS].sort(), scoped.sort())
  })

  it('expands safely with attributes named like VCDM 1.1 terms, and with types that are phrases or IRIs', async () => {
    for (const [type, expected] of [
      ['MemberCard', `${VOCAB}MemberCard`],
      ['Member Card', `${VOCAB}Member%20Card`],
      ['https://types.example/Card', 'https://types.example/Card'],
    ]) {
      const [expanded] = (await expand(type!, {
        name: 'Ada',
        issuer: 'Guild',
        expirationDate: '2030-01-01',
        level: 2,
      })) as Json[]
      assert.ok(expanded!['@type'].includes(expected), `${type}: ${JSON.stringify(expanded!['@type'])}`)
      // On the credential the VCDM 1.1 terms mean what that context says...
      assert.deepEqual(expanded![`${CRED}issuer`], [{ '@id': 'did:example:issuer' }])
      assert.deepEqual(expanded![`${CRED}credentialSchema`][0]['@type'], [`${CRED}JsonSchema`])
      // ...and inside the subject the schema's attributes of the same names are the schema's.
      const subject = expanded![`${CRED}credentialSubject`][0]
      assert.deepEqual(subject['https://schema.org/name'], [{ '@value': 'Ada' }])
      assert.deepEqual(subject[`${VOCAB}issuer`], [{ '@value': 'Guild' }])
      assert.deepEqual(subject[`${VOCAB}expirationDate`], [
        { '@type': 'http://www.w3.org/2001/XMLSchema#date', '@value': '2030-01-01' },
      ])
      assert.deepEqual(subject[`${VOCAB}level`], [{ '@type': 'http://www.w3.org/2001/XMLSchema#double', '@value': 2 }])
    }
    await assert.rejects(expand('MemberCard', { shoe_size: 42 }), /Safe mode validation error/)
  })
})
