import { schemaJsonSchemaUrl, schemaVocabulary } from '../credentials/formats/vc-jose/schema-urls.js'
import { JSON_TYPES } from './attribute-validator.js'
import type { SchemaRow } from './schemas.repository.js'

const XSD = 'http://www.w3.org/2001/XMLSchema#'

/**
 * The terms the VCDM 2.0 context (https://www.w3.org/ns/credentials/v2) defines at its top level:
 * protected there, so a schema context must not define them again (JSON-LD 1.1 §4.1.11 "protected
 * term redefinition"); an attribute of such a name expands as the VCDM defines it.
 */
export const VCDM2_TERMS: ReadonlySet<string> = new Set([
  'id', 'type', 'description', 'digestMultibase', 'digestSRI', 'mediaType', 'name',
  'VerifiableCredential', 'EnvelopedVerifiableCredential', 'VerifiablePresentation', 'EnvelopedVerifiablePresentation',
  'JsonSchemaCredential', 'JsonSchema', 'BitstringStatusListCredential', 'BitstringStatusList', 'BitstringStatusListEntry',
  'DataIntegrityProof', '...', '_sd', '_sd_alg', 'aud', 'cnf', 'exp', 'iat', 'iss', 'jku', 'kid', 'nbf', 'sub', 'x5u',
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
 * The JSON-LD 1.1 context of a schema's VCDM 2.0 credentials (VCDM 2.0 §5.2 "Extensibility"):
 * a protected, typed term per attribute under the schema's vocabulary, the credential `type`
 * the issuance chose, the JWT `jti` claim (the VCDM 2.0 context defines the other JWT claims),
 * and the terms of the evidence this service attaches. Expanded in safe mode, nothing a credential
 * issued here carries is dropped.
 */
export function schemaContext(schema: SchemaShape, publicBaseUrl: string, type: string | undefined): Record<string, unknown> {
  const vocab = schemaVocabulary(publicBaseUrl, schema.id)
  const terms: Record<string, unknown> = { '@version': 1.1, '@protected': true }
  // A type that is an IRI already (has a colon) names itself; a VCDM term is the VCDM's.
  if (type !== undefined && !type.includes(':') && !VCDM2_TERMS.has(type)) terms[type] = `${vocab}${encodeURIComponent(type)}`
  terms.jti = { '@id': 'https://www.iana.org/assignments/jwt#jti', '@type': '@id' }
  terms.extensions = `${vocab}extensions`
  // Evidence entries (issuance.service.ts): `name` and `mediaType` are VCDM 2.0 terms.
  terms.Evidence = `${vocab}Evidence`
  terms.filename = `${vocab}filename`
  terms.size = { '@id': `${vocab}size`, '@type': `${XSD}nonNegativeInteger` }
  for (const attribute of schema.attributes) {
    if (VCDM2_TERMS.has(attribute.name)) continue
    const ldType = LD_TYPES[attribute.data_type]
    const iri = `${vocab}${attribute.name}`
    terms[attribute.name] = ldType ? { '@id': iri, '@type': ldType } : iri
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
  for (const attribute of schema.attributes) properties[attribute.name] = { ...(JSON_TYPES[attribute.data_type] ?? {}), ...(attribute.description ? { description: attribute.description } : {}) }
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
