/**
 * One full credential lifecycle over HTTP, as three parties run it (test/integration/lifecycle.test.ts
 * and anonymous-proofs.test.ts show the same flow with assertions): issuer, holder and verifier
 * each log in with their did:key (challenge + verify-challenge); the issuer issues; the verifier
 * creates a presentation request; the holder takes it into its inbox, (BBS) derives an anonymous
 * proof with one predicate, signs a VP-JWT on its own side and approves; the verifier verifies
 * (is_valid must be true); the issuer revokes. Every answer is checked (status and the field the
 * next step needs); anything else ends the flow with a FlowError naming the step.
 */
import type { HttpResponse, JsonClient } from './http-client.js'
import type { LoadMode } from './load-options.js'
import { loginOnce } from './login-load.js'
import { attributes, PREDICATE, SCHEMA_ATTRIBUTES } from './proofs-run.js'
import { signPresentation } from './verification-load.js'
import { createVirtualUser, signChallenge, type VirtualUser } from './virtual-user.js'

/**
 * The credential of the proofs part (bench/lib/proofs-run.ts), imported so the two cannot drift:
 * four attributes, which with the nine fixed meta slots make the 13-message BBS credential whose
 * raw derive/verify cost `measureRawProofs` measures, and the same predicate (one Bulletproofs++
 * bound). JWT mode uses the same attributes with a schema that opts out of BBS, so both modes
 * issue the same data; every credential gets different values, so nothing can be cached per body.
 */
const LOAD_CREDENTIAL_TYPE = 'LoadIdentity'
const REVEALED = 'nationality'

export const FLOW_STEPS: Record<LoadMode, readonly string[]> = {
  jwt: ['login issuer', 'login holder', 'login verifier', 'issue', 'request', 'inbox', 'approve', 'verify', 'revoke'],
  bbs: [
    'login issuer',
    'login holder',
    'login verifier',
    'issue',
    'request',
    'inbox',
    'derive proof',
    'approve',
    'verify',
    'revoke',
  ],
}
/** HTTP requests per flow: two per login, one per other step. */
export const requestsPerFlow = (mode: LoadMode) => FLOW_STEPS[mode].length + 3

export interface IssuerParty {
  user: VirtualUser
  schemaId: string
}

/** The identities one virtual user plays. Holder and verifier are replaced every flow with --fresh-dids. */
export interface Parties {
  issuer: IssuerParty
  holder: VirtualUser
  verifier: VirtualUser
}

/** A step that did not answer as expected; `kind` groups errors (step, status, code), `detail` is the start of the body. */
export class FlowError extends Error {
  constructor(
    readonly step: string,
    readonly kind: string,
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`)
  }
}

// Decoded JSON from the wire, read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

async function call(
  step: string,
  request: () => Promise<HttpResponse>,
  status: number,
  check: (body: Json) => string | undefined,
): Promise<Json> {
  let res: HttpResponse
  try {
    res = await request()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    throw new FlowError(step, `${step}: network ${code}`, error instanceof Error ? error.message : String(error))
  }
  let body: Json
  try {
    body = JSON.parse(res.body) as Json
  } catch {
    throw new FlowError(step, `${step}: ${res.status} (not JSON)`, res.body.slice(0, 300))
  }
  if (res.status !== status)
    throw new FlowError(
      step,
      `${step}: ${res.status}${typeof body.code === 'string' ? ` ${body.code}` : ''}`,
      res.body.slice(0, 300),
    )
  const problem = check(body)
  if (problem) throw new FlowError(step, `${step}: ${problem}`, res.body.slice(0, 300))
  return body
}

async function login(client: JsonClient, step: string, user: VirtualUser): Promise<Record<string, string>> {
  const { challenge } = await call(
    step,
    () => client.post('/api/auth/challenge', { did: user.did }),
    200,
    (b) => (typeof b.challenge === 'string' ? undefined : 'no challenge'),
  )
  const { token } = await call(
    step,
    () =>
      client.post('/api/auth/verify-challenge', {
        did: user.did,
        challenge,
        signature: signChallenge(user, challenge as string),
      }),
    200,
    (b) => (typeof b.token === 'string' && b.token.split('.').length === 3 ? undefined : 'no token'),
  )
  return { authorization: `Bearer ${token as string}` }
}

/** One issuer: login, profile, one schema of the mode's kind (BBS, or opted out of it). */
export async function setUpIssuerParty(client: JsonClient, mode: LoadMode, name: string): Promise<IssuerParty> {
  const user = createVirtualUser()
  const headers = { authorization: `Bearer ${await loginOnce(client, user)}` }
  await call(
    'issuer profile',
    () => client.post('/api/issuer', { name }, headers),
    201,
    () => undefined,
  )
  const schema = await call(
    'schema',
    () =>
      client.post(
        `/api/issuer/${user.did}/schemas`,
        {
          name: `Load identity (${mode})`,
          version: '1.0',
          attributes: SCHEMA_ATTRIBUTES,
          anonymous_credentials: mode === 'bbs',
        },
        headers,
      ),
    201,
    (b) => (typeof b.schema?.id === 'string' ? undefined : 'no schema.id'),
  )
  return { user, schemaId: schema.schema.id as string }
}

/**
 * Runs one lifecycle; `timing[i]` receives the milliseconds of FLOW_STEPS[mode][i]. Throws
 * FlowError at the first unexpected answer.
 */
export async function runFlow(
  client: JsonClient,
  mode: LoadMode,
  parties: Parties,
  n: number,
  timing: Float64Array,
): Promise<void> {
  const { issuer, holder, verifier } = parties
  let i = 0
  let began = performance.now()
  const done = () => {
    const now = performance.now()
    timing[i++] = now - began
    began = now
  }
  const issuerHeaders = await login(client, 'login issuer', issuer.user)
  done()
  const holderHeaders = await login(client, 'login holder', holder)
  done()
  const verifierHeaders = await login(client, 'login verifier', verifier)
  done()

  const issued = await call(
    'issue',
    () =>
      client.post(
        `/api/issuer/${issuer.user.did}/issue`,
        {
          credential_type: LOAD_CREDENTIAL_TYPE,
          schema_id: issuer.schemaId,
          subject_did: holder.did,
          attributes: attributes(n),
        },
        issuerHeaders,
      ),
    201,
    (b) => {
      const c = b.credential
      if (typeof c?.id !== 'string') return 'no credential.id'
      if (typeof c.jwt !== 'string' || c.jwt.split('.').length !== 3) return 'no credential.jwt'
      const bbs = c.credential?.bbs_signature
      if (mode === 'bbs' && (typeof bbs !== 'string' || !bbs)) return 'no bbs_signature (BBS schema)'
      if (mode === 'jwt' && bbs !== null) return 'a bbs_signature on a JWT-only schema'
      return undefined
    },
  )
  const credentialId = issued.credential.id as string
  done()

  const created = await call(
    'request',
    () =>
      client.post(
        '/api/verifier/requests',
        {
          verifier_did: verifier.did,
          presentation_type: 'LoadCheck',
          purpose: 'Load test',
          required_credentials: [
            { credential_type: LOAD_CREDENTIAL_TYPE, issuer_did: issuer.user.did, required_attributes: [REVEALED] },
          ],
          required_predicates: [PREDICATE],
        },
        verifierHeaders,
      ),
    201,
    (b) =>
      typeof b.request?.id === 'string' && typeof b.request.nonce === 'string' ? undefined : 'no request.id or nonce',
  )
  const requestId = created.request.id as string
  const nonce = created.request.nonce as string
  done()

  await call(
    'inbox',
    () => client.post('/api/wallet/presentation-requests', { request_id: requestId }, holderHeaders),
    201,
    (b) => (b.request?.id === requestId ? undefined : 'another request in the inbox answer'),
  )
  done()

  let presented: unknown = issued.credential.jwt
  if (mode === 'bbs') {
    const derived = await call(
      'derive proof',
      () =>
        client.post(
          `/api/wallet/${holder.did}/credentials/${credentialId}/anonymous-proof`,
          {
            reveal: [REVEALED],
            predicates: [PREDICATE],
            nonce,
            verifier_did: verifier.did,
          },
          holderHeaders,
        ),
      200,
      (b) =>
        b.proof?.type === 'AnonymousCredentialProof' && b.proof.nonce === nonce
          ? undefined
          : 'no AnonymousCredentialProof for this nonce',
    )
    presented = derived.proof
    done()
  }

  const vp = signPresentation(holder, verifier.did, nonce, [presented as string])
  const approved = await call(
    'approve',
    () =>
      client.post(
        `/api/wallet/presentation-requests/${requestId}/approve`,
        { credential_ids: [credentialId], presentation_jwt: vp },
        holderHeaders,
      ),
    201,
    (b) => (typeof b.presentation?.id === 'string' ? undefined : 'no presentation.id'),
  )
  done()

  await call(
    'verify',
    () =>
      client.post(
        `/api/verifier/presentations/${approved.presentation.id as string}/verify`,
        { presentation_jwt: vp },
        verifierHeaders,
      ),
    200,
    (b) => {
      const result = b.verification_result
      if (result?.is_valid !== true)
        return `is_valid ${String(result?.is_valid)}${Array.isArray(result?.errors) ? ` (${(result.errors as string[]).join('; ').slice(0, 200)})` : ''}`
      return b.status === 'verified' ? undefined : `status ${String(b.status)}`
    },
  )
  done()

  await call(
    'revoke',
    () => client.post(`/api/issuer/${issuer.user.did}/credentials/${credentialId}/revoke`, {}, issuerHeaders),
    200,
    (b) => (b.credential?.status === 'revoked' ? undefined : `status ${String(b.credential?.status)}`),
  )
  done()
}

/** With --fresh-dids the holder and verifier are new every flow; the issuer keeps its profile and schema. */
export const partiesFor = (base: Parties, freshDids: boolean): Parties =>
  freshDids ? { issuer: base.issuer, holder: createVirtualUser(), verifier: createVirtualUser() } : base
