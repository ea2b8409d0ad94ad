import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../did-client.js'
import { signPresentation } from '../holder-wallet.js'
import { IssuerActor } from '../issuer-setup.js'
import { multipart } from '../wallet-fixtures.js'

/** What the seeded world holds: one owner acting as issuer, holder and verifier, and a stranger. */
export interface Seeded {
  owner: IssuerActor
  stranger: DidClient
  /** Property / parameter name -> a seeded value, for every route. */
  hints: Record<string, unknown>
  /** Route pattern -> names whose meaning differs per route (`id`, `request_id`). */
  routeHints: Array<{ pattern: RegExp; hints: Record<string, unknown> }>
  /** An access token of the owner's W3C VC API client. */
  vcApiToken: string
}

// JSON from the wire, read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Fuzz Degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'gpa', data_type: 'number' },
    { name: 'birth_date', data_type: 'date' },
  ],
  evidence_allowed: true,
  allowed_evidence: ['transcript'],
  anonymous_credentials: false,
}

/**
 * One of each record the routes address, made through the ordinary HTTP routes (so the fuzzer
 * also hits existing-record paths with hostile bodies): issuer profile, schema, template,
 * credential, offer, credential request, consent, verifier profile and preset, presentation
 * request, presentation, share, evidence, wallet and encrypted seed, QR codes, domain challenge.
 */
export async function seedWorld(app: FastifyInstance): Promise<Seeded> {
  const owner = new IssuerActor()
  await owner.setUp(app, 'Fuzz University')
  const stranger = new DidClient()
  const strangerToken = await stranger.login(app)
  const as =
    (token: string) =>
    async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, expected = [200, 201]): Promise<Json> => {
      const res = await app.inject({
        method,
        url,
        headers: bearer(token),
        ...(payload === undefined ? {} : { payload: payload as object }),
      })
      if (!expected.includes(res.statusCode)) throw new Error(`seeding ${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.json()
    }
  const me = as(owner.token)
  const them = as(strangerToken)
  const did = owner.did

  const schemaId = await owner.schema(app, SCHEMA)
  const schema = (await me('GET', `/api/issuer/${did}/schemas/${schemaId}`)).schema
  const template = (
    await me('POST', `/api/issuer/${did}/templates`, {
      name: 'Fuzz template',
      credential_type: 'FuzzDegree',
      schema_id: schemaId,
      fixed_attributes: { gpa: 4 },
    })
  ).template
  const issued = (
    await me('POST', `/api/issuer/${did}/issue`, {
      credential_type: 'FuzzDegree',
      schema_id: schemaId,
      subject_did: did,
      attributes: { given_name: 'Ada', gpa: 3.5, birth_date: '2001-02-03' },
    })
  ).credential
  const offer = (
    await me('POST', `/api/issuer/${did}/offers`, {
      credential_type: 'FuzzDegree',
      schema_id: schemaId,
      attributes: { given_name: 'Offered' },
      max_uses: 5,
    })
  ).offer
  const credentialRequest = (
    await them('POST', '/api/wallet/credential-request', {
      issuer_did: did,
      schema_id: schemaId,
      credential_type: 'FuzzDegree',
      attributes: { given_name: 'Asked' },
    })
  ).request
  const consent = (await me('POST', `/api/wallet/${did}/consents`, { verifier_did: stranger.did, purpose: 'fuzzing' }))
    .consent
  await me('POST', '/api/verifier', { name: 'Fuzz Verifier' })
  const preset = (
    await me('POST', `/api/verifier/${did}/presets`, {
      name: 'Fuzz preset',
      presentation_type: 'FuzzCheck',
      required_credentials: [{ credential_type: 'FuzzDegree' }],
      purpose: 'fuzzing',
    })
  ).preset
  const created = await them('POST', '/api/verifier/requests', {
    verifier_did: stranger.did,
    presentation_type: 'FuzzCheck',
    required_credentials: [{ credential_type: 'FuzzDegree', issuer_did: did }],
    purpose: 'fuzzing',
  })
  const ownRequest = (
    await me('POST', '/api/verifier/requests', {
      verifier_did: did,
      presentation_type: 'FuzzCheck',
      required_credentials: [{ credential_type: 'FuzzDegree' }],
      purpose: 'fuzzing',
    })
  ).request
  await me('POST', '/api/wallet/presentation-requests', { request_id: created.request.id })
  const vp = signPresentation(owner, { aud: stranger.did, nonce: created.request.nonce, credentials: [issued.jwt] })
  const presentation = (
    await me('POST', `/api/wallet/presentation-requests/${created.request.id}/approve`, {
      credential_ids: [issued.id],
      presentation_jwt: vp,
    })
  ).presentation
  const share = (
    await me('POST', `/api/wallet/${did}/credentials/share`, { credential_id: issued.id, purpose: 'fuzzing' })
  ).share
  const qr = await me('POST', '/api/qr/presentation-request', { request_id: ownRequest.id })
  await me('POST', '/api/qr/credential-offer', { offer_id: offer.id })
  const domain = (await me('POST', '/api/domain/challenge', { did, domain: 'fuzz.example.com' })).challenge
  await me('POST', '/api/auth/wallet/encrypted-seed', {
    encrypted_seed: randomBytes(32).toString('base64'),
    encryption: { algorithm: 'AES-GCM' },
  })
  const evidence = await uploadEvidence(app, owner.token, did)
  const wallet = await app.inject({
    method: 'POST',
    url: '/api/auth/create-wallet',
    payload: { ...(await owner.proof(app)), wallet_name: 'Fuzz phone', wallet_type: 'mobile' },
  })
  if (wallet.statusCode !== 201) throw new Error(`seeding create-wallet: ${wallet.statusCode} ${wallet.body}`)
  const statusListId = jwtStatusListId(issued.jwt) ?? 'fuzz-list'
  const hash = issued.credential_hash

  // The owner's W3C VC API client and a token of it (OAuth 2.0 client credentials); its issuer instance is in the endpoints.
  const vcApiClient = (await me('POST', `/api/issuer/${did}/vc-api/clients`, { name: 'Fuzz client' })).client
  // The one the client routes address: the issuer group's writes may revoke it, the token's client stays.
  const revocableClient = (await me('POST', `/api/issuer/${did}/vc-api/clients`, { name: 'Fuzz client to revoke' }))
    .client
  const granted = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: {
      grant_type: 'client_credentials',
      client_id: vcApiClient.client_id,
      client_secret: vcApiClient.client_secret,
    },
  })
  if (granted.statusCode !== 200) throw new Error(`seeding a VC API token: ${granted.statusCode} ${granted.body}`)
  const issuerInstance = /\/issuers\/([^/]+)\//.exec(vcApiClient.endpoints.status as string)![1]!

  const hints: Record<string, unknown> = {
    did,
    issuer_did: did,
    issuerDid: did,
    subject_did: did,
    user_did: did,
    userDid: did,
    verifier_did: stranger.did,
    verifierDid: stranger.did,
    schema_id: schemaId,
    schemaId,
    template_id: template.id,
    credential_id: issued.id,
    credentialId: issued.id,
    credential_type: 'FuzzDegree',
    offer_id: offer.id,
    consent_id: consent.id,
    share_id: share.id,
    token: share.token,
    evidence_id: evidence,
    short_id: new URL(qr.short_url).pathname.split('/').pop(),
    cid: schema.ipfs_hash,
    ipfs_hash: schema.ipfs_hash,
    credential_hash: hash,
    credentialHash: hash,
    schema_hash: hash,
    schemaHash: hash,
    preset_id: preset.id,
    challenge_id: domain.id,
    domain: 'fuzz.example.com',
    purpose: 'fuzzing',
    wallet_id: wallet.json().wallet.id,
    name: 'Fuzz',
    attributes: { given_name: 'Ada' },
  }
  const routeHints = [
    {
      pattern: /^\/api\/(wallet\/issuer\/:issuer_did\/request|issuer\/:did\/requests)\//,
      hints: { request_id: credentialRequest.id },
    },
    { pattern: /^\/api\/wallet\/presentation-requests/, hints: { request_id: created.request.id } },
    { pattern: /^\/api\/qr\/presentation-request$/, hints: { request_id: ownRequest.id } },
    { pattern: /^\/api\/verifier\/requests\/:id/, hints: { id: ownRequest.id } },
    { pattern: /^\/api\/verifier\/presentations\/:id/, hints: { id: presentation.id } },
    { pattern: /^\/api\/status-lists\/:id/, hints: { id: statusListId } },
    { pattern: /^\/api\/verifier\/verify\/ipfs\//, hints: { ipfs_hash: issued.ipfs_hash } },
    { pattern: /^\/api\/docs\//, hints: { '*': 'swagger-ui.css' } },
    { pattern: /^\/vc-api\/issuers\//, hints: { issuer_id: issuerInstance, format: 'vc+jwt' } },
    { pattern: /^\/api\/issuer\/:did\/vc-api\/clients\/:client_id/, hints: { client_id: revocableClient.client_id } },
  ]
  return { owner, stranger, hints, routeHints, vcApiToken: granted.json().access_token as string }
}

async function uploadEvidence(app: FastifyInstance, token: string, did: string): Promise<string> {
  const upload = multipart([
    { name: 'label', value: 'transcript' },
    { name: 'file', filename: 't.txt', contentType: 'text/plain', data: Buffer.from('seeded evidence') },
  ])
  const res = await app.inject({
    method: 'POST',
    url: `/api/wallet/${did}/evidence/upload`,
    headers: { ...bearer(token), ...upload.headers },
    payload: upload.payload,
  })
  if (res.statusCode !== 201) throw new Error(`seeding evidence: ${res.statusCode} ${res.body}`)
  return res.json().record.id
}

/** The status list id from a JWT-VC's credentialStatus (W3C Bitstring Status List entry). */
function jwtStatusListId(jwt: string): string | undefined {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'))
  const url: unknown = payload?.vc?.credentialStatus?.statusListCredential
  return typeof url === 'string' ? new URL(url).pathname.split('/').pop() : undefined
}
