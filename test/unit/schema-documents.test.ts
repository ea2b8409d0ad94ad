/**
 * A schema's JSON-LD context and JSON Schema (schema-documents.ts), checked with jsonld's safe
 * expansion against the VCDM 2.0 context as its package publishes it, for the names that collide
 * with VCDM terms and credential types that are not plain words.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contexts } from '@digitalbazaar/credentials-context'
import jsonld from 'jsonld'
import { schemaContext, VCDM2_TERMS } from '../../src/modules/issuer/schema-documents.js'

const BASE = 'https://issuer.example'
const V2 = 'https://www.w3.org/ns/credentials/v2'
const schema = {
  id: 'schema-1',
  name: 'Card',
  description: '',
  version: '1',
  attributes: [
    { name: 'name', data_type: 'string', description: '', required: true },
    { name: 'description', data_type: 'string', description: '', required: false },
    { name: 'size', data_type: 'number', description: '', required: false },
    { name: 'jti', data_type: 'string', description: '', required: false },
    { name: 'valid', data_type: 'boolean', description: '', required: false },
  ],
}

const expand = (type: string) => {
  const url = `${BASE}/ctx`
  const documentLoader = async (u: string) => ({
    contextUrl: undefined,
    documentUrl: u,
    document: structuredClone(u === url ? schemaContext(schema, BASE, type) : contexts.get(u)!),
  })
  const credential = {
    '@context': [V2, url],
    id: 'urn:uuid:1',
    type: ['VerifiableCredential', type],
    issuer: 'did:example:issuer',
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name: 'Ada', description: 'd', size: 3, jti: 'x', valid: true },
  }
  return jsonld.expand(credential, { documentLoader, safe: true } as unknown as Parameters<typeof jsonld.expand>[1])
}

describe('schema documents', () => {
  it('leaves every top-level term of the VCDM 2.0 context to it (they are protected there)', () => {
    const v2Terms = Object.keys(contexts.get(V2)!['@context'] as object).filter((k) => !k.startsWith('@'))
    assert.deepEqual([...VCDM2_TERMS].sort(), v2Terms.sort())
  })

  it('expands safely with attributes named like VCDM terms, and with types that are phrases, IRIs or VCDM terms', async () => {
    const vocab = `${BASE}/api/schemas/schema-1/vocab#`
    for (const [type, expected] of [
      ['MemberCard', `${vocab}MemberCard`],
      ['Member Card', `${vocab}Member%20Card`],
      ['https://types.example/Card', 'https://types.example/Card'],
      ['JsonSchemaCredential', 'https://www.w3.org/2018/credentials#JsonSchemaCredential'],
    ]) {
      const [expanded] = (await expand(type!)) as Array<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
      assert.ok(expanded!['@type'].includes(expected), `${type}: ${JSON.stringify(expanded!['@type'])}`)
      const subject = expanded!['https://www.w3.org/2018/credentials#credentialSubject'][0]
      assert.deepEqual(subject['https://schema.org/name'], [{ '@value': 'Ada' }])
      assert.deepEqual(subject['https://schema.org/description'], [{ '@value': 'd' }])
      assert.deepEqual(subject[`${vocab}size`], [{ '@type': 'http://www.w3.org/2001/XMLSchema#double', '@value': 3 }])
      assert.deepEqual(subject[`${vocab}jti`], [{ '@value': 'x' }])
      assert.deepEqual(subject[`${vocab}valid`], [
        { '@type': 'http://www.w3.org/2001/XMLSchema#boolean', '@value': true },
      ])
    }
  })
})
