import type { Clock } from '../../adapters/clock.js'
import { encodeStatusList } from '../../crypto/bitstring.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import type { JwsSigner, SigningIdentities } from '../identity/signing-identities.js'
import { LD_SUFFIX } from './status-check.js'
import * as repo from './status-list.repository.js'
import { StatusListAllocator, type StatusSlot } from './status-list-allocator.js'
import { signTokenStatusList } from './token-status-list.js'
import { signTokenStatusListCwt } from './token-status-list-cwt.js'
import type { DocumentSigners } from '../certificates/document-signer.js'
import { VC_V2 } from '../../shared/vc-contexts.js'

/**
 * A credential format that secures a caller-built VCDM 2.0 document with the issuer's Ed25519 key:
 * the one the composition root registered for a form of status list (formats/format-registry.ts).
 */
export interface ListSecuringFormat {
  secure(
    document: Record<string, unknown>,
    signer: JwsSigner,
    options: Record<string, never>,
  ): Promise<{ credential: string; document: Record<string, unknown> }>
}

/** The forms a list is published in: the JOSE-secured credential, or the JSON-LD one with a Data Integrity proof. */
export type StatusListForm = 'jwt' | 'ld'

export interface StatusListEntry {
  id: string
  type: 'BitstringStatusListEntry'
  statusPurpose: string
  statusListIndex: string
  statusListCredential: string
}

/** Status List Token lifetime (`exp`) and the caching a verifier may do (`ttl`), in seconds. */
const TOKEN_LIFETIME_S = 3600
const TOKEN_TTL_S = 30

/**
 * Revocation status of issued credentials as W3C Bitstring Status Lists: entries for new
 * credentials, bits set on revocation, and the status-list credential (a VCDM 2.0 `vc+jwt` signed
 * by the issuer's key) served publicly so anyone can check a credential without asking this
 * service's database anything else.
 */
export class StatusListService {
  private readonly allocator: StatusListAllocator
  private readonly signed = new Map<string, { version: number; jwt: string; updatedAt: Date }>()
  private readonly tokens = new Map<string, { version: number; jwt: string; signedAt: number }>()
  private readonly cwtTokens = new Map<string, { version: number; cwt: Uint8Array; signedAt: number }>()

  private readonly ldSigned = new Map<string, { version: number; document: Record<string, unknown> }>()

  constructor(
    private readonly deps: {
      db: Database
      identities: SigningIdentities
      clock: Clock
      publicBaseUrl: string
      /** The formats the list is published in: a JOSE-secured credential, and the JSON-LD one Data Integrity credentials name. */
      listFormats: { jwt: ListSecuringFormat; ld?: ListSecuringFormat }
      /**
       * The issuers' mdoc Document Signers (certificates module), which sign the CWT form; none, no
       * CWT form. Asked per request, so the module providing them may register after this one.
       */
      documentSigners: DocumentSigners
    },
  ) {
    this.allocator = new StatusListAllocator(deps.db)
  }

  allocate(issuerDid: string): Promise<StatusSlot> {
    return this.allocator.allocate(issuerDid)
  }

  /** The entry of a slot; `ld`: naming the list's JSON-LD form, for Data Integrity credentials. */
  entry(slot: StatusSlot, form: StatusListForm = 'jwt'): StatusListEntry {
    const url = form === 'ld' ? `${this.url(slot.listId)}${LD_SUFFIX}` : this.url(slot.listId)
    return {
      id: `${url}#${slot.index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(slot.index),
      statusListCredential: url,
    }
  }

  /**
   * The same list as a JSON-LD credential secured with Data Integrity (`listFormats.ld`) by the
   * issuer's Ed25519 signing DID: what Data Integrity credentials name, read by JSON-LD verifiers
   * (Bitstring Status List §2.2). Re-signed only when the list changed.
   */
  async ldCredential(listId: string): Promise<{ document: Record<string, unknown>; version: number }> {
    const ld = this.deps.listFormats.ld
    if (!ld) throw new NotFoundError('Status list not found')
    const current = await repo.findVersion(this.deps.db, listId)
    if (!current) throw new NotFoundError('Status list not found')
    const cached = this.ldSigned.get(listId)
    if (cached && cached.version === current.version) return cached
    const list = (await repo.findListBits(this.deps.db, listId))!
    const identity = await this.deps.identities.identity(list.issuer_did)
    if (!identity) throw new NotFoundError('Status list not found')
    const signer = await this.deps.identities.jwsSigner(identity, 'Ed25519')
    const url = `${this.url(listId)}${LD_SUFFIX}`
    const vc = {
      '@context': [VC_V2],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: signer.did,
      validFrom: `${this.deps.clock.now().toISOString().slice(0, 19)}Z`,
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: list.purpose,
        encodedList: encodeStatusList(list.bits),
      },
    }
    const entry = { document: (await ld.secure(vc, signer, {})).document, version: list.version }
    if (this.ldSigned.size > 1000) this.ldSigned.clear()
    this.ldSigned.set(listId, entry)
    return entry
  }

  /** The status-list credential as a compact JWT secured by `listFormats.jwt` (VC-JOSE-COSE); re-signed only when the list changed. */
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
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: list.purpose,
        encodedList: encodeStatusList(list.bits),
      },
    }
    // VC-JOSE-COSE §3.1.1: the payload is the credential; `iss` repeats its issuer for JWT libraries.
    const { credential: jwt } = await this.deps.listFormats.jwt.secure(
      { ...vc, iss: signer.did, iat: Math.floor(now.getTime() / 1000) },
      signer,
      {},
    )
    const entry = { jwt, version: list.version, updatedAt: new Date(list.updated_at) }
    if (this.signed.size > 1000) this.signed.clear()
    this.signed.set(listId, entry)
    return entry
  }

  /**
   * The same list as an IETF Status List Token (token-status-list.ts), what an SD-JWT VC's
   * `status.status_list.uri` names: signed ES256 by the issuer's P-256 signing key, `iss` as the
   * credentials name it (the hosted issuer's https URL, or its did:key). Re-signed when the list
   * changed or half its lifetime has passed.
   */
  async token(listId: string): Promise<{ jwt: string; version: number; signedAt: number }> {
    const current = await repo.findVersion(this.deps.db, listId)
    if (!current) throw new NotFoundError('Status list not found')
    const now = this.deps.clock.now().getTime()
    const cached = this.tokens.get(listId)
    if (cached && cached.version === current.version && now - cached.signedAt < (TOKEN_LIFETIME_S * 1000) / 2)
      return cached
    const list = (await repo.findListBits(this.deps.db, listId))!
    const identity = await this.deps.identities.identity(list.issuer_did)
    if (!identity) throw new NotFoundError('Status list not found')
    const signer = await this.deps.identities.jwsSigner(identity, 'P-256')
    const iat = Math.floor(now / 1000)
    const jwt = await signTokenStatusList(
      list.bits,
      {
        iss: signer.httpsIssuer ?? signer.did,
        uri: `${this.url(listId)}/token`,
        iat,
        exp: iat + TOKEN_LIFETIME_S,
        ttl: TOKEN_TTL_S,
      },
      signer,
    )
    const entry = { jwt, version: list.version, signedAt: now }
    if (this.tokens.size > 1000) this.tokens.clear()
    this.tokens.set(listId, entry)
    return entry
  }

  /**
   * The same list and claims as `token`, in CWT form (token-status-list-cwt.ts), what an mdoc's MSO
   * `status.status_list.uri` names (ISO/IEC 18013-5 with draft-ietf-oauth-status-list §6.3):
   * signed ES256 by the issuer's Document Signer with its `x5chain`, so a verifier trusting the
   * IACA root checks it as it checks the MSO. Re-signed when the list changed or half its lifetime passed.
   */
  async tokenCwt(listId: string): Promise<{ cwt: Uint8Array; version: number; signedAt: number }> {
    const signers = this.deps.documentSigners
    const current = await repo.findVersion(this.deps.db, listId)
    if (!current) throw new NotFoundError('Status list not found')
    const now = this.deps.clock.now().getTime()
    const cached = this.cwtTokens.get(listId)
    if (cached && cached.version === current.version && now - cached.signedAt < (TOKEN_LIFETIME_S * 1000) / 2)
      return cached
    const list = (await repo.findListBits(this.deps.db, listId))!
    const signer = await signers.documentSigner(list.issuer_did)
    const iat = Math.floor(now / 1000)
    const cwt = await signTokenStatusListCwt(
      list.bits,
      { uri: `${this.url(listId)}/token`, iat, exp: iat + TOKEN_LIFETIME_S, ttl: TOKEN_TTL_S },
      signer,
    )
    const entry = { cwt, version: list.version, signedAt: now }
    if (this.cwtTokens.size > 1000) this.cwtTokens.clear()
    this.cwtTokens.set(listId, entry)
    return entry
  }

  private url(listId: string): string {
    return `${this.deps.publicBaseUrl}/api/status-lists/${listId}`
  }
}
