import { present } from '@sd-jwt/core'
import type { ServiceClient } from '../client.js'
import { signKbJwt, signVpJwt } from '../jws.js'
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
 * 3. per credential: an SD-JWT VC discloses `reveal`, or else the attributes the request asks of
 *    its type, with a Key Binding JWT for the nonce and verifier (README "SD-JWT VC"); otherwise,
 *    with `reveal` or `predicates`, a BBS proof derived for the nonce (the same disclosure for
 *    each); otherwise the credential's JWT as issued;
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
  const { nonce, verifier_did, purpose, required_credentials } = inbox!.request
  await ensureConsent(c, did, verifier_did, purpose)
  const derive = o.reveal !== undefined || o.predicates !== undefined
  const stored = await walletCredentials(c, did, o.credentialIds)
  const credentials = await Promise.all(
    stored.map((credential) => {
      if (isSdJwt(credential.jwt)) {
        if (o.predicates?.length)
          throw new Error(
            `${credential.id} is an SD-JWT VC: it discloses claims but cannot prove predicates (a BBS credential can)`,
          )
        const asked = required_credentials
          .filter((r) => r.credential_type === credential.credential_type)
          .flatMap((r) => r.required_attributes ?? [])
        return discloseSdJwt(k, credential.jwt, o.reveal ?? asked, { audience: verifier_did, nonce })
      }
      if (derive)
        return deriveProof(c, did, credential.id, {
          nonce,
          verifier_did,
          reveal: o.reveal ?? [],
          predicates: o.predicates ?? [],
        })
      return credential.jwt
    }),
  )
  const presentationJwt = await signVpJwt(k, { audience: verifier_did, nonce, credentials })
  const { data } = await c.api.POST('/api/wallet/presentation-requests/{request_id}/approve', {
    params: { path: { request_id: o.requestId } },
    body: { credential_ids: o.credentialIds, presentation_jwt: presentationJwt },
  })
  return { presentationId: data!.presentation.id, presentationJwt }
}

async function ensureConsent(c: ServiceClient, did: string, verifierDid: string, purpose: string): Promise<void> {
  const { data } = await c.api.GET('/api/wallet/{did}/consents', {
    params: { path: { did }, query: { verifier_did: verifierDid, status: 'active', limit: 200 } },
  })
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

interface StoredCredential {
  id: string
  credential_type: string
  jwt: string
}

/** The credentials as the wallet's listing holds them (keyset pages), in the order asked. */
async function walletCredentials(c: ServiceClient, did: string, ids: string[]): Promise<StoredCredential[]> {
  const found = new Map<string, StoredCredential>()
  let cursor: string | undefined
  do {
    const { data } = await c.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did }, query: { limit: 200, ...(cursor ? { cursor } : {}) } },
    })
    for (const credential of data!.data) if (ids.includes(credential.id)) found.set(credential.id, credential)
    cursor = data!.next_cursor ?? undefined
  } while (cursor && found.size < ids.length)
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length) throw new Error(`Not in this wallet: ${missing.join(', ')}`)
  return ids.map((id) => found.get(id)!)
}

/** An SD-JWT (RFC 9901 §4) is the issuer-signed JWT followed by `~` and its disclosures. */
const isSdJwt = (credential: string) => credential.includes('~')

/**
 * RFC 9901 §4.3: the disclosures of `claims` only, chosen by @sd-jwt/core, then the Key Binding
 * JWT over that presentation for this verifier and nonce.
 */
async function discloseSdJwt(
  k: HolderKey,
  sdJwt: string,
  claims: string[],
  o: { audience: string; nonce: string },
): Promise<string> {
  const frame = Object.fromEntries(claims.map((claim) => [claim, true]))
  const presentation = await present(sdJwt.endsWith('~') ? sdJwt : `${sdJwt}~`, frame, webCryptoHasher)
  return signKbJwt(k, { presentation, audience: o.audience, nonce: o.nonce })
}

/** The digest @sd-jwt/core asks for (`_sd_alg`, IANA names such as `sha-256`), on WebCrypto. */
async function webCryptoHasher(data: string | ArrayBuffer, alg: string): Promise<Uint8Array> {
  const names: Record<string, string> = { 'sha-256': 'SHA-256', 'sha-384': 'SHA-384', 'sha-512': 'SHA-512' }
  const name = names[alg.toLowerCase()]
  if (!name) throw new Error(`Unsupported SD-JWT hash algorithm: ${alg}`)
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data)
  return new Uint8Array(await globalThis.crypto.subtle.digest(name, bytes))
}
