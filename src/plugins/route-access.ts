/**
 * Who may call which route: the single allow-list of public routes and the admin group
 * (DESIGN.md "Auth": public routes). Every route not listed needs a session token.
 * Keys are `METHOD <route pattern as registered>`. The W3C VC API group needs an OAuth 2.0
 * access token of an issuer's client instead (docs/vc-api.md).
 */
export type Access = 'public' | 'user' | 'admin' | 'client'

export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/health',
  'GET /api/health/live',
  'GET /api/health/ready',
  'GET /metrics',
  'HEAD /metrics',
  'POST /api/auth/challenge',
  'POST /api/auth/verify-challenge',
  'POST /api/auth/login',
  'POST /api/auth/register',
  'POST /api/auth/generate-did',
  // Proof of DID control is in the body (a signed challenge), not in a session token.
  'POST /api/auth/create-wallet',
  'POST /api/auth/login-wallet',
  'POST /api/auth/wallet/encrypted-seed/get',
  'GET /api/did/:did',
  'GET /api/ipfs/:cid',
  'GET /api/status-lists/:id',
  'GET /api/qr/resolve/:short_id',
  // A schema's JSON-LD contexts (VCDM 2.0, VCDM 1.1) and JSON Schema, named by the credentials issued under it.
  'GET /api/schemas/:schema_id/context.jsonld',
  'HEAD /api/schemas/:schema_id/context.jsonld',
  'GET /api/schemas/:schema_id/context-v1.jsonld',
  'HEAD /api/schemas/:schema_id/context-v1.jsonld',
  'GET /api/schemas/:schema_id/json-schema.json',
  'HEAD /api/schemas/:schema_id/json-schema.json',
  'HEAD /api/qr/resolve/:short_id',
  'HEAD /api/status-lists/:id',
  'HEAD /api/health',
  'HEAD /api/health/live',
  'HEAD /api/health/ready',
  'HEAD /api/did/:did',
  'HEAD /api/ipfs/:cid',
  // A holder's share link: the unguessable token in the path is the authorization (docs/wallet.md).
  'GET /api/wallet/shared/:token',
  // An issuer's mdoc IACA and Document Signer certificates: what verifiers trust (docs/certificates.md).
  'GET /api/issuer/:did/certificates',
  'HEAD /api/issuer/:did/certificates',
  // A verifier's access certificate chain: what wallets trust for its x509 client ids (OID4VP 1.0 §5.9.3).
  'GET /api/verifier/:did/certificates',
  'HEAD /api/verifier/:did/certificates',
  // The keys that sign callbacks: receivers verify with public information only.
  'GET /api/callbacks/jwks',
  'HEAD /api/callbacks/jwks',
  // Blockchain read routes (DESIGN.md "Auth"): anyone may check what is anchored.
  'GET /api/blockchain/status',
  'HEAD /api/blockchain/status',
  'GET /api/blockchain/credential/check/:did/:credential_hash',
  'HEAD /api/blockchain/credential/check/:did/:credential_hash',
  'GET /api/blockchain/schema/check/:schema_id',
  'HEAD /api/blockchain/schema/check/:schema_id',
  'GET /api/blockchain/consent/check/:user_did/:verifier_did/:purpose',
  'HEAD /api/blockchain/consent/check/:user_did/:verifier_did/:purpose',
  // did:web documents hosted here and the DID Configuration linking them to this origin.
  'GET /issuers/:id/did.json',
  'HEAD /issuers/:id/did.json',
  'GET /verifiers/:id/did.json',
  'HEAD /verifiers/:id/did.json',
  // OpenID4VP 1.0 (docs/openid4vp.md): the wallet fetches the request object and posts its
  // response; the unguessable request id and its single-use nonce are what bind them.
  'GET /openid4vp/requests/:id',
  'HEAD /openid4vp/requests/:id',
  'POST /openid4vp/requests/:id',
  'POST /openid4vp/responses/:id',
  'GET /.well-known/did.json',
  'HEAD /.well-known/did.json',
  'GET /did.json',
  'HEAD /did.json',
  'GET /.well-known/did-configuration.json',
  'HEAD /.well-known/did-configuration.json',
  // SD-JWT VC: the hosted issuers' JWT VC Issuer Metadata, Type Metadata of each vct, and the
  // Token Status Lists they reference (docs/formats.md).
  'GET /.well-known/jwt-vc-issuer/issuers/:id',
  'HEAD /.well-known/jwt-vc-issuer/issuers/:id',
  'GET /vct/:schema_id',
  'HEAD /vct/:schema_id',
  'GET /api/schema-presets',
  'HEAD /api/schema-presets',
  'GET /api/status-lists/:id/token',
  'GET /api/status-lists/:id/ld',
  'HEAD /api/status-lists/:id/ld',
  'HEAD /api/status-lists/:id/token',
  'GET /api/blockchain-legacy/network-info',
  'HEAD /api/blockchain-legacy/network-info',
  'GET /api/blockchain-legacy/verify-credential/:issuerDid/:credentialHash',
  'HEAD /api/blockchain-legacy/verify-credential/:issuerDid/:credentialHash',
  'GET /api/blockchain-legacy/check-consent/:userDid/:verifierDid/:purpose',
  'HEAD /api/blockchain-legacy/check-consent/:userDid/:verifierDid/:purpose',
  // OAuth 2.0 token endpoint of the VC API: the client authenticates with its id and secret.
  'POST /oauth2/token',
  // OpenID4VCI (docs/openid4vci.md): metadata and offers are public; the token endpoint takes a
  // pre-authorized code; the credential, deferred and notification endpoints take the access
  // token (and DPoP proof) it issued, checked by the route, not a session token.
  'GET /.well-known/openid-credential-issuer/issuers/:web_id',
  'HEAD /.well-known/openid-credential-issuer/issuers/:web_id',
  'GET /.well-known/oauth-authorization-server/issuers/:web_id',
  'HEAD /.well-known/oauth-authorization-server/issuers/:web_id',
  'GET /issuers/:web_id/.well-known/openid-credential-issuer',
  'HEAD /issuers/:web_id/.well-known/openid-credential-issuer',
  'GET /issuers/:web_id/.well-known/oauth-authorization-server',
  'HEAD /issuers/:web_id/.well-known/oauth-authorization-server',
  'GET /issuers/:web_id/oid4vci/jwks',
  'HEAD /issuers/:web_id/oid4vci/jwks',
  'GET /issuers/:web_id/oid4vci/offers/:handle',
  'HEAD /issuers/:web_id/oid4vci/offers/:handle',
  'POST /issuers/:web_id/oid4vci/token',
  'POST /issuers/:web_id/oid4vci/par',
  // The holder's proof of DID control is in the body (a signed challenge).
  'GET /issuers/:web_id/oid4vci/authorize',
  'HEAD /issuers/:web_id/oid4vci/authorize',
  'POST /issuers/:web_id/oid4vci/authorize',
  'POST /issuers/:web_id/oid4vci/nonce',
  'POST /issuers/:web_id/oid4vci/credential',
  'POST /issuers/:web_id/oid4vci/deferred-credential',
  'POST /issuers/:web_id/oid4vci/notification',
  // The web console's static files (packages/console): the page signs in from the browser.
  'GET /app',
  'HEAD /app',
  'GET /app/*',
  'HEAD /app/*',
])

export const ADMIN_PREFIX = '/api/admin/'
export const VC_API_PREFIX = '/vc-api/'
/** The OpenAPI document and its UI (every static asset swagger-ui registers). */
export const DOCS_PREFIX = '/api/docs'
/** The web console's pages and assets (src/modules/console). */
export const CONSOLE_PREFIX = '/app'

export function accessOf(method: string, routeUrl: string | undefined): Access {
  if (routeUrl === undefined) return 'public' // unmatched: the 404 handler answers
  if (routeUrl.startsWith(ADMIN_PREFIX)) return 'admin'
  if (routeUrl.startsWith(VC_API_PREFIX)) return 'client'
  if (routeUrl === DOCS_PREFIX || routeUrl.startsWith(`${DOCS_PREFIX}/`)) return 'public'
  return PUBLIC_ROUTES.has(`${method} ${routeUrl}`) ? 'public' : 'user'
}
