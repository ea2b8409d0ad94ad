import { schemaJsonSchemaUrl, schemaVocabulary } from '../credentials/formats/schema-urls.js'
import { JSON_TYPES } from './attribute-validator.js'
import type { SchemaRow } from './schemas.repository.js'

const XSD = 'http://www.w3.org/2001/XMLSchema#'

/**
 * The terms the VCDM 2.0 context (https://www.w3.org/ns/credentials/v2) defines at its top level:
 * protected there, so a schema context must not define them again (JSON-LD 1.1 §4.1.11 "protected
 * term redefinition"); an attribute of such a name expands as the VCDM defines it.
 */
export const VCDM2_TERMS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'description',
  'digestMultibase',
  'digestSRI',
  'mediaType',
  'name',
  'VerifiableCredential',
  'EnvelopedVerifiableCredential',
  'VerifiablePresentation',
  'EnvelopedVerifiablePresentation',
  'JsonSchemaCredential',
  'JsonSchema',
  'BitstringStatusListCredential',
  'BitstringStatusList',
  'BitstringStatusListEntry',
  'DataIntegrityProof',
  '...',
  '_sd',
  '_sd_alg',
  'aud',
  'cnf',
  'exp',
  'iat',
  'iss',
  'jku',
  'kid',
  'nbf',
  'sub',
  'x5u',
])

/** How each attribute data type is typed in JSON-LD (XML Schema datatypes; `@json` keeps structure as a literal). */
const LD_TYPES: Record<string, string | undefined> = {
  number: `${XSD}double`,
  boolean: `${XSD}boolean`,
  date: `${XSD}date`,
  url: `${XSD}anyURI`,
  object: '@json',
  array: '@json',
}

type SchemaShape = Pick<SchemaRow, 'id' | 'name' | 'description' | 'version' | 'attributes'>

/**
 * Terms protected at the top level of the VCDM 1.1 context (https://www.w3.org/2018/credentials/v1)
 * and of the Bitstring Status List context (https://www.w3.org/ns/credentials/status/v1): a schema
 * context named after them must not define them again (JSON-LD 1.1 §4.1.11).
 */
export const VCDM1_TERMS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'VerifiableCredential',
  'VerifiablePresentation',
  'proof',
  'EcdsaSecp256k1Signature2019',
  'EcdsaSecp256r1Signature2019',
  'Ed25519Signature2018',
  'RsaSignature2018',
  'BitstringStatusListCredential',
  'BitstringStatusList',
  'BitstringStatusListEntry',
])

/**
 * Terms the VCDM 1.1 context defines only in the type-scoped context of `VerifiableCredential`,
 * which applies to the credential object and not to the subject inside it (JSON-LD 1.1 §4.1.8,
 * type-scoped contexts do not propagate). An attribute of such a name gets an unprotected term:
 * the type-scoped context may then redefine it on the credential, and the subject keeps ours.
 */
export const VCDM1_CREDENTIAL_TERMS: ReadonlySet<string> = new Set([
  'cred',
  'sec',
  'xsd',
  'credentialSchema',
  'credentialStatus',
  'credentialSubject',
  'evidence',
  'expirationDate',
  'holder',
  'issued',
  'issuer',
  'issuanceDate',
  'refreshService',
  'termsOfUse',
  'validFrom',
  'validUntil',
])

/**
 * VCDM 2.0 terms a VCDM 1.1 credential issued here uses but the 1.1 context lacks (`JsonSchema`
 * of `credentialSchema`, VC JSON Schema §3.1; `name` and `mediaType` of evidence), defined with
 * VCDM 2.0's IRIs so both versions of a credential mean the same.
 */
const VCDM2_TERMS_FOR_V1: Readonly<Record<string, unknown>> = {
  JsonSchema: 'https://www.w3.org/2018/credentials#JsonSchema',
  name: 'https://schema.org/name',
  description: 'https://schema.org/description',
  mediaType: { '@id': 'https://schema.org/encodingFormat' },
}

/** The term of an attribute: its IRI under the schema's vocabulary, typed by its data type; `overridable`: unprotected. */
function attributeTerm(vocab: string, attribute: SchemaShape['attributes'][number], overridable = false): unknown {
  const ldType = LD_TYPES[attribute.data_type]
  const iri = `${vocab}${attribute.name}`
  if (!ldType && !overridable) return iri
  return { '@id': iri, ...(ldType ? { '@type': ldType } : {}), ...(overridable ? { '@protected': false } : {}) }
}

/** `extensions` and the evidence terms (issuance.service.ts): `name` and `mediaType` are VCDM 2.0's. */
function evidenceTerms(vocab: string): Record<string, unknown> {
  return {
    extensions: `${vocab}extensions`,
    Evidence: `${vocab}Evidence`,
    filename: `${vocab}filename`,
    size: { '@id': `${vocab}size`, '@type': `${XSD}nonNegativeInteger` },
  }
}

/**
 * The JSON-LD 1.1 context of a schema's VCDM 2.0 credentials (VCDM 2.0 §5.2 "Extensibility"):
 * a protected, typed term per attribute under the schema's vocabulary, the credential `type`
 * the issuance chose, the JWT `jti` claim (the VCDM 2.0 context defines the other JWT claims),
 * and the terms of the evidence this service attaches. Expanded in safe mode, nothing a credential
 * issued here carries is dropped.
 */
export function schemaContext(
  schema: SchemaShape,
  publicBaseUrl: string,
  type: string | undefined,
): Record<string, unknown> {
  const vocab = schemaVocabulary(publicBaseUrl, schema.id)
  const terms: Record<string, unknown> = { '@version': 1.1, '@protected': true }
  // A type that is an IRI already (has a colon) names itself; a VCDM term is the VCDM's.
  if (type !== undefined && !type.includes(':') && !VCDM2_TERMS.has(type))
    terms[type] = `${vocab}${encodeURIComponent(type)}`
  terms.jti = { '@id': 'https://www.iana.org/assignments/jwt#jti', '@type': '@id' }
  Object.assign(terms, evidenceTerms(vocab))
  for (const attribute of schema.attributes) {
    if (VCDM2_TERMS.has(attribute.name)) continue
    terms[attribute.name] = attributeTerm(vocab, attribute)
  }
  return { '@context': terms }
}

/**
 * The JSON-LD 1.1 context of a schema's VCDM 1.1 credentials (`jwt_vc_json`; VCDM 1.1 §5.3
 * "Extensibility"), named after the VCDM 1.1 and Bitstring Status List contexts: the same
 * attribute, type and evidence terms as the VCDM 2.0 one, plus the VCDM 2.0 terms the 1.1 context
 * lacks. An attribute named as a term those contexts protect is left to them.
 */
export function schemaContextV1(
  schema: SchemaShape,
  publicBaseUrl: string,
  type: string | undefined,
): Record<string, unknown> {
  const vocab = schemaVocabulary(publicBaseUrl, schema.id)
  const terms: Record<string, unknown> = { '@version': 1.1, '@protected': true }
  const reserved = (name: string) => VCDM1_TERMS.has(name) || VCDM1_CREDENTIAL_TERMS.has(name)
  if (type !== undefined && !type.includes(':') && !reserved(type)) terms[type] = `${vocab}${encodeURIComponent(type)}`
  Object.assign(terms, evidenceTerms(vocab), VCDM2_TERMS_FOR_V1)
  for (const attribute of schema.attributes) {
    if (VCDM1_TERMS.has(attribute.name) || attribute.name in VCDM2_TERMS_FOR_V1) continue
    terms[attribute.name] = attributeTerm(vocab, attribute, VCDM1_CREDENTIAL_TERMS.has(attribute.name))
  }
  return { '@context': terms }
}

/**
 * The JSON Schema (2020-12) a schema's VCDM 2.0 credentials name in `credentialSchema` (VCDM 2.0
 * §4.11, type JsonSchema): it validates the whole credential, whose `credentialSubject` holds the
 * attributes with the JSON types issuance checks them against and the required ones required.
 */
export function schemaJsonSchema(schema: SchemaShape, publicBaseUrl: string): Record<string, unknown> {
  const properties: Record<string, unknown> = { id: { type: 'string', minLength: 1 } }
  for (const attribute of schema.attributes)
    properties[attribute.name] = {
      ...(JSON_TYPES[attribute.data_type] ?? {}),
      ...(attribute.description ? { description: attribute.description } : {}),
    }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaJsonSchemaUrl(publicBaseUrl, schema.id),
    title: `${schema.name} ${schema.version}`,
    ...(schema.description ? { description: schema.description } : {}),
    type: 'object',
    properties: {
      credentialSubject: {
        type: 'object',
        properties,
        required: schema.attributes.filter((a) => a.required).map((a) => a.name),
        additionalProperties: false,
      },
    },
    required: ['credentialSubject'],
  }
}
