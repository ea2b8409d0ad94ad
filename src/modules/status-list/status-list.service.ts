import type { Clock } from '../../adapters/clock.js'
import { encodeStatusList } from '../../crypto/bitstring.js'
import { signCompactJws } from '../../crypto/jws.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import type { SigningIdentities } from '../identity/signing-identities.js'
import * as repo from './status-list.repository.js'
import { StatusListAllocator, type StatusSlot } from './status-list-allocator.js'

const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
/** The typ of a VCDM 2.0 credential secured as a JWT (VC-JOSE-COSE §3.1.1), the status list's own form. */
const VC_JWT_TYP = 'vc+jwt'

export interface StatusListEntry {
  id: string
  type: 'BitstringStatusListEntry'
  statusPurpose: string
  statusListIndex: string
  statusListCredential: string
}

/**
 * Revocation status of issued credentials as W3C Bitstring Status Lists: entries for new
 * credentials, bits set on revocation, and the status-list credential (a VCDM 2.0 `vc+jwt` signed
 * by the issuer's key) served publicly so anyone can check a credential without asking this
 * service's database anything else.
 */
export class StatusListService {
  private readonly allocator: StatusListAllocator
  private readonly signed = new Map<string, { version: number; jwt: string; updatedAt: Date }>()

  constructor(private readonly deps: { db: Database; identities: SigningIdentities; clock: Clock; publicBaseUrl: string }) {
    this.allocator = new StatusListAllocator(deps.db)
  }

  allocate(issuerDid: string): Promise<StatusSlot> {
    return this.allocator.allocate(issuerDid)
  }

  entry(slot: StatusSlot): StatusListEntry {
    const url = this.url(slot.listId)
    return { id: `${url}#${slot.index}`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: String(slot.index), statusListCredential: url }
  }

  /** The status-list credential as a compact `vc+jwt` (VC-JOSE-COSE); re-signed only when the list changed. */
  async credential(listId: string): Promise<{ jwt: string; version: number; updatedAt: Date }> {
    const current = await repo.findVersion(this.deps.db, listId)
    if (!current) throw new NotFoundError('Status list not found')
    const cached = this.signed.get(listId)
    if (cached && cached.version === current.version) return cached
    const list = (await repo.findListBits(this.deps.db, listId))!
    const identity = await this.deps.identities.identity(list.issuer_did)
    if (!identity) throw new NotFoundError('Status list not found')
    // Signed by the issuer's current Ed25519 signing DID, which the credentials it covers name.
    const signer = await this.deps.identities.jwsSigner(identity, 'Ed25519')
    const url = this.url(listId)
    const now = this.deps.clock.now()
    const vc = {
      '@context': [VC_V2],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: signer.did,
      validFrom: now.toISOString(),
      credentialSubject: { id: `${url}#list`, type: 'BitstringStatusList', statusPurpose: list.purpose, encodedList: encodeStatusList(list.bits) },
    }
    // VC-JOSE-COSE §3.1.1: the payload is the credential; `iss` repeats its issuer for JWT libraries.
    const jwt = await signCompactJws({ typ: VC_JWT_TYP, kid: signer.kid }, { ...vc, iss: signer.did, iat: Math.floor(now.getTime() / 1000) }, signer.privateKey)
    const entry = { jwt, version: list.version, updatedAt: new Date(list.updated_at) }
    if (this.signed.size > 1000) this.signed.clear()
    this.signed.set(listId, entry)
    return entry
  }

  private url(listId: string): string {
    return `${this.deps.publicBaseUrl}/api/status-lists/${listId}`
  }
}
