import {
  authorizationCodeGrantIdentifier,
  Oauth2AuthorizationServer,
  PkceCodeChallengeMethod,
  preAuthorizedCodeGrantIdentifier,
  type AuthorizationServerMetadata,
} from '@openid4vc/oauth2'
import {
  Openid4vciIssuer,
  Openid4vciVersion,
  type CredentialIssuerMetadata,
  type IssuerMetadataResult,
} from '@openid4vc/openid4vci'
import { hostedIssuerUrl } from '../../did/jwt-vc-issuer.js'
import type { Oid4vciFormat } from '../../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../../credentials/formats/format-registry.js'
import type { Oid4vciSchema } from '../../credentials/formats/oid4vci-face.js'
import type { IssuerIdentityRow } from '../../identity/signing-identities.js'

/** Proof keys the credential endpoint accepts (HAIP asks for ES256; EdDSA for did:key wallets). */
export const PROOF_ALGS = ['ES256', 'EdDSA']
export const BATCH_SIZE = 10
export const DEFERRED_INTERVAL_S = 5

/** `<schema_id>.<OID4VCI format>`: one credential configuration per schema and format. */
export const configurationId = (schemaId: string, format: Oid4vciFormat): string =>
  `${schemaId}.${format.oid4vci.format}`

/** The schema and the service's format of a configuration id; undefined when its suffix names no format served. */
export function parseConfigurationId(
  formats: FormatRegistry,
  id: string,
): { schemaId: string; format: string } | undefined {
  const dot = id.lastIndexOf('.')
  const format = dot > 0 ? formats.byOid4vci(id.slice(dot + 1)) : undefined
  return format ? { schemaId: id.slice(0, dot), format: format.id } : undefined
}

export interface IssuerProfileView {
  name: string
  description: string
  logo_url: string | null
}

export type SchemaView = Oid4vciSchema

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
export function authorizationServerMetadata(
  publicBaseUrl: string,
  identity: IssuerIdentityRow,
): AuthorizationServerMetadata {
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
export function credentialIssuerMetadata(
  publicBaseUrl: string,
  identity: IssuerIdentityRow,
  profile: IssuerProfileView,
  schemas: SchemaView[],
  formats: readonly Oid4vciFormat[],
): CredentialIssuerMetadata {
  const e = endpointsOf(publicBaseUrl, identity.web_id)
  const configurations: Record<string, Record<string, unknown>> = {}
  for (const schema of schemas) {
    for (const format of formats) {
      const served = configuration(publicBaseUrl, schema, format)
      if (served) configurations[configurationId(schema.id, format)] = served
    }
  }
  return library.createCredentialIssuerMetadata({
    credential_issuer: e.issuer,
    credential_endpoint: e.credential,
    nonce_endpoint: e.nonce,
    deferred_credential_endpoint: e.deferred,
    notification_endpoint: e.notification,
    batch_credential_issuance: { batch_size: BATCH_SIZE },
    display: [
      {
        name: profile.name,
        locale: 'en',
        ...(profile.logo_url ? { logo: { uri: profile.logo_url, alt_text: profile.name } } : {}),
      },
    ],
    credential_configurations_supported:
      configurations as CredentialIssuerMetadata['credential_configurations_supported'],
  })
}

/** What the library needs to read requests against the metadata. */
export function issuerMetadataResult(
  credentialIssuer: CredentialIssuerMetadata,
  authorizationServer: AuthorizationServerMetadata,
): IssuerMetadataResult {
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer,
    authorizationServers: [authorizationServer],
    knownCredentialConfigurations: library.getKnownCredentialConfigurationsSupported(credentialIssuer),
  }
}

/** A schema's configuration in one format: the format's own members, then what every configuration has. */
function configuration(
  publicBaseUrl: string,
  schema: SchemaView,
  format: Oid4vciFormat,
): Record<string, unknown> | undefined {
  const own = format.oid4vci.configuration(schema, publicBaseUrl)
  if (!own) return undefined
  const display = [
    { name: schema.name, locale: 'en', ...(schema.description ? { description: schema.description } : {}) },
  ]
  const claims = schema.attributes.map((a) => ({
    path: format.oid4vci.claimPath(a.name, schema),
    mandatory: a.required,
    display: [{ name: a.description || a.name, locale: 'en' }],
  }))
  const proofs = { jwt: { proof_signing_alg_values_supported: [...(format.oid4vci.proofAlgs ?? PROOF_ALGS)] } }
  return {
    ...own,
    scope: configurationId(schema.id, format),
    proof_types_supported: proofs,
    credential_metadata: { display, claims },
  }
}
