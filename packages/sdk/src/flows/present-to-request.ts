import type { ServiceClient } from '../client.js'
import { signVpJwt } from '../jws.js'
import type { HolderKey } from '../keys.js'
import { holderDid } from './session.js'

/** A predicate proven in zero knowledge on a number or date attribute (`gpa >= 3`). */
export interface Predicate {
  attribute: string
  operator: string
  value: number | string
}

type ProofOperator = '>=' | '>' | '<=' | '<'

/**
 * The spec's presentation flow (README "Request and verify a presentation", "Prove a predicate"):
 * 1. take the verifier's request into the inbox (its nonce, verifier and purpose);
 * 2. grant the verifier a one-time consent for the purpose unless an active one exists;
 * 3. with `reveal` or `predicates`: derive a BBS proof per credential (the same disclosure for
 *    each) bound to the nonce; otherwise present the credentials' JWTs as issued;
 * 4. sign the VP-JWT here and approve the request with it.
 * The VP-JWT is returned too: the verifier verifies with it (`POST /api/verifier/presentations/:id/verify`).
 */
export async function presentToRequest(
  c: ServiceClient,
  k: HolderKey,
  o: { requestId: string; credentialIds: string[]; reveal?: string[]; predicates?: Predicate[] },
): Promise<{ presentationId: string; presentationJwt: string }> {
  const did = holderDid(c, k)
  if (o.credentialIds.length === 0) throw new Error('credentialIds: name at least one credential to present')
  const { data: inbox } = await c.api.POST('/api/wallet/presentation-requests', { body: { request_id: o.requestId } })
  const { nonce, verifier_did, purpose } = inbox!.request
  await ensureConsent(c, did, verifier_did, purpose)
  const derive = o.reveal !== undefined || o.predicates !== undefined
  const credentials = derive
    ? await Promise.all(o.credentialIds.map((id) => deriveProof(c, did, id, { nonce, verifier_did, reveal: o.reveal ?? [], predicates: o.predicates ?? [] })))
    : await credentialJwts(c, did, o.credentialIds)
  const presentationJwt = await signVpJwt(k, { audience: verifier_did, nonce, credentials })
  const { data } = await c.api.POST('/api/wallet/presentation-requests/{request_id}/approve', {
    params: { path: { request_id: o.requestId } },
    body: { credential_ids: o.credentialIds, presentation_jwt: presentationJwt },
  })
  return { presentationId: data!.presentation.id, presentationJwt }
}

async function ensureConsent(c: ServiceClient, did: string, verifierDid: string, purpose: string): Promise<void> {
  const { data } = await c.api.GET('/api/wallet/{did}/consents', { params: { path: { did }, query: { verifier_did: verifierDid, status: 'active', limit: 200 } } })
  if (data!.data.some((consent) => consent.purpose === purpose)) return
  await c.api.POST('/api/wallet/{did}/consents', {
    params: { path: { did } },
    body: { verifier_did: verifierDid, purpose, expiration_policy: 'one_time_use' },
  })
}

async function deriveProof(
  c: ServiceClient,
  did: string,
  credentialId: string,
  o: { nonce: string; verifier_did: string; reveal: string[]; predicates: Predicate[] },
): Promise<unknown> {
  const { data } = await c.api.POST('/api/wallet/{did}/credentials/{credential_id}/anonymous-proof', {
    params: { path: { did, credential_id: credentialId } },
    // The service validates the operator (400 naming the allowed ones), so it is passed as given.
    body: { ...o, predicates: o.predicates.map((p) => ({ ...p, operator: p.operator as ProofOperator })) },
  })
  return data!.proof
}

/** The credentials' JWTs, from the wallet's listing (keyset pages). */
async function credentialJwts(c: ServiceClient, did: string, ids: string[]): Promise<string[]> {
  const found = new Map<string, string>()
  let cursor: string | undefined
  do {
    const { data } = await c.api.GET('/api/wallet/{did}/credentials', { params: { path: { did }, query: { limit: 200, ...(cursor ? { cursor } : {}) } } })
    for (const credential of data!.data) if (ids.includes(credential.id)) found.set(credential.id, credential.jwt)
    cursor = data!.next_cursor ?? undefined
  } while (cursor && found.size < ids.length)
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length) throw new Error(`Not in this wallet: ${missing.join(', ')}`)
  return ids.map((id) => found.get(id)!)
}
