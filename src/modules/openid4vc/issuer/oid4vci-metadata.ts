import { authorizationCodeGrantIdentifier, Oauth2AuthorizationServer, PkceCodeChallengeMethod, preAuthorizedCodeGrantIdentifier, type AuthorizationServerMetadata } from '@openid4vc/oauth2'
import { Openid4vciIssuer, Openid4vciVersion, type CredentialIssuerMetadata, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import { hostedIssuerUrl } from '../../did/jwt-vc-issuer.js'
import { vctFor } from '../../credentials/formats/sd-jwt-vc/sd-jwt-vc-claims.js'
import type { IssuerIdentityRow } from '../../identity/signing-identities.js'

/** The service's issuable formats served through OpenID4VCI, by their OID4VCI format identifier (Appendix A). */
export const OID4VCI_FORMATS: Readonly<Record<string, string>> = { 'dc+sd-jwt': 'dc+sd-jwt', jwt_vc_json: 'jwt_vc_json', 'eddsa-rdfc-2022': 'ldp_vc' }
const FORMAT_OF_SUFFIX = new Map(Object.entries(OID4VCI_FORMATS).map(([format, suffix]) => [suffix, format]))
/** The format a credential configuration of an offer without one is issued in (the spec's default). */
export const DEFAULT_OID4VCI_FORMAT = 'jwt_vc_json'
/** Proof keys the credential endpoint accepts (HAIP asks for ES256; EdDSA for did:key wallets). */
export const PROOF_ALGS = ['ES256', 'EdDSA']
export const BATCH_SIZE = 10
export const DEFERRED_INTERVAL_S = 5

/** `<schema_id>.<OID4VCI format>`: one credential configuration per schema and format. */
export const configurationId = (schemaId: string, format: string): string => `${schemaId}.${OID4VCI_FORMATS[format]}`

export function parseConfigurationId(id: string): { schemaId: string; format: string } | undefined {
  const dot = id.lastIndexOf('.')
  const format = dot > 0 ? FORMAT_OF_SUFFIX.get(id.slice(dot + 1)) : undefined
  return format ? { schemaId: id.slice(0, dot), format } : undefined
}

export interface IssuerProfileView {
  name: string
  description: string
  logo_url: string | null
}

export interface SchemaView {
  id: string
  name: string
  description: string
  attributes: Array<{ name: string; data_type: string; description: string; required: boolean }>
}

/** The endpoints of one credential issuer (`<base>/issuers/<web_id>`), which is its own authorization server. */
export function endpointsOf(publicBaseUrl: string, webId: string) {
  const issuer = hostedIssuerUrl(publicBaseUrl, webId)
  const base = `${issuer}/oid4vci`
  return {
    issuer,
    offer: (reference: string) => `${base}/offers/${reference}`,
    token: `${base}/token`,
    jwks: `${base}/jwks`,
    nonce: `${base}/nonce`,
    credential: `${base}/credential`,
    deferred: `${base}/deferred-credential`,
    notification: `${base}/notification`,
    authorize: `${base}/authorize`,
  }
}

const library = new Openid4vciIssuer({ callbacks: {} as never })
const authorizationLibrary = new Oauth2AuthorizationServer({ callbacks: {} as never })

/** RFC 8414 metadata of the issuer as its own authorization server (authorization code with PKCE S256, pre-authorized code, DPoP ES256/EdDSA). */
export function authorizationServerMetadata(publicBaseUrl: string, identity: IssuerIdentityRow): AuthorizationServerMetadata {
  const e = endpointsOf(publicBaseUrl, identity.web_id)
  return authorizationLibrary.createAuthorizationServerMetadata({
    issuer: e.issuer,
    token_endpoint: e.token,
    authorization_endpoint: e.authorize,
    jwks_uri: e.jwks,
    grant_types_supported: [authorizationCodeGrantIdentifier, preAuthorizedCodeGrantIdentifier],
    response_types_supported: ['code'],
    code_challenge_methods_supported: [PkceCodeChallengeMethod.S256],
    token_endpoint_auth_methods_supported: ['none'],
    dpop_signing_alg_values_supported: PROOF_ALGS,
    'pre-authorized_grant_anonymous_access_supported': true,
  })
}

/**
 * Credential Issuer Metadata (OID4VCI 1.0 §12.2): display from the issuer profile, one
 * configuration per schema and format, jwt key proofs, nonce, deferred and notification endpoints, batch.
 */
export function credentialIssuerMetadata(publicBaseUrl: string, identity: IssuerIdentityRow, profile: IssuerProfileView, schemas: SchemaView[]): CredentialIssuerMetadata {
  const e = endpointsOf(publicBaseUrl, identity.web_id)
  const configurations: Record<string, Record<string, unknown>> = {}
  for (const schema of schemas) {
    for (const format of Object.keys(OID4VCI_FORMATS)) configurations[configurationId(schema.id, format)] = configuration(publicBaseUrl, schema, format)
  }
  return library.createCredentialIssuerMetadata({
    credential_issuer: e.issuer,
    credential_endpoint: e.credential,
    nonce_endpoint: e.nonce,
    deferred_credential_endpoint: e.deferred,
    notification_endpoint: e.notification,
    batch_credential_issuance: { batch_size: BATCH_SIZE },
    display: [{ name: profile.name, locale: 'en', ...(profile.logo_url ? { logo: { uri: profile.logo_url, alt_text: profile.name } } : {}) }],
    credential_configurations_supported: configurations as CredentialIssuerMetadata['credential_configurations_supported'],
  })
}

/** What the library needs to read requests against the metadata. */
export function issuerMetadataResult(credentialIssuer: CredentialIssuerMetadata, authorizationServer: AuthorizationServerMetadata): IssuerMetadataResult {
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer,
    authorizationServers: [authorizationServer],
    knownCredentialConfigurations: library.getKnownCredentialConfigurationsSupported(credentialIssuer),
  }
}

function configuration(publicBaseUrl: string, schema: SchemaView, format: string): Record<string, unknown> {
  const display = [{ name: schema.name, locale: 'en', ...(schema.description ? { description: schema.description } : {}) }]
  const claims = schema.attributes.map((a) => ({
    path: format === 'dc+sd-jwt' ? [a.name] : ['credentialSubject', a.name],
    mandatory: a.required,
    display: [{ name: a.description || a.name, locale: 'en' }],
  }))
  const proofs = { jwt: { proof_signing_alg_values_supported: PROOF_ALGS } }
  const common = { scope: configurationId(schema.id, format), proof_types_supported: proofs, credential_metadata: { display, claims } }
  if (format === 'dc+sd-jwt') {
    return { format: 'dc+sd-jwt', vct: vctFor(publicBaseUrl, schema.id), cryptographic_binding_methods_supported: ['jwk'], credential_signing_alg_values_supported: ['ES256'], ...common }
  }
  if (format === 'jwt_vc_json') {
    return { format: 'jwt_vc_json', credential_definition: { type: ['VerifiableCredential'] }, cryptographic_binding_methods_supported: ['did:jwk', 'did:key'], credential_signing_alg_values_supported: ['EdDSA'], ...common }
  }
  return {
    format: 'ldp_vc',
    credential_definition: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'] },
    cryptographic_binding_methods_supported: ['did:jwk', 'did:key'],
    credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
    ...common,
  }
}
