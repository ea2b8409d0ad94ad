import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { decodeStatusList, statusBit } from '../../crypto/bitstring.js'
import type { Database } from '../../db/database.js'
import { jwtVerify } from 'jose'
import { decodeCompactJws } from '../../crypto/jws.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws } from '../did/did-jws.js'
import { resolveIssuerKey } from '../did/jwt-vc-issuer.js'
import { STATUS_LIST_JWT_MEDIA_TYPE, tokenStatusAt } from './token-status-list.js'
import {
  readTokenStatusListCwt,
  STATUS_LIST_CWT_MEDIA_TYPE,
  type VerifiedStatusListCwt,
} from './token-status-list-cwt.js'
import type { DidResolver } from '../did/did-resolver.js'
import * as repo from './status-list.repository.js'

/**
 * Reads the credential a verified status-list JWS carries, by its format (VC-JOSE-COSE §3.1.1: the
 * payload; VCDM 1.1 §6.3.1: its `vc` claim): the credential formats' registry.
 */
export interface ListCredentialReader {
  statusListCredential(jws: string, payload: Record<string, unknown>): Record<string, unknown> | undefined
}

export type StatusState = { state: 'active' } | { state: 'revoked' } | { state: 'unknown'; reason: string }

/**
 * Remote lists already read, by URL and issuer: a caller checking many credentials at once
 * passes one so each list is fetched and verified once (a failed read fails them all alike).
 */
export type StatusListMemo = Map<string, Promise<Uint8Array | string | VerifiedStatusListCwt>>

const MAX_INDEX = 2 ** 31
const TOKEN_SUFFIX = '/token'
/** The Data Integrity (JSON-LD) form of a list this service publishes: the same bits. */
export const LD_SUFFIX = '/ld'
const localListId = (path: string): string => (path.endsWith(LD_SUFFIX) ? path.slice(0, -LD_SUFFIX.length) : path)

/**
 * Reads a W3C Bitstring Status List entry (`credentialStatus`) the way a verifier must: lists
 * this service publishes are read from its database (the same bits GET /api/status-lists/:id
 * signs); any other list is fetched through the guarded HTTP client, its JWT verified against
 * the issuer's DID document, and the bit read from `encodedList` (Bitstring Status List §3.2).
 */
export class StatusChecker {
  private readonly localPrefix: string

  constructor(
    private readonly deps: {
      db: Database
      publicBaseUrl: string
      httpGet: HttpGet
      resolver: DidResolver
      issuerOf: (signingDid: string) => Promise<string | undefined>
      /** The credential formats, which read a status-list credential from elsewhere once its JWS is verified. */
      formats: ListCredentialReader
      /** The service's clock and CLOCK_SKEW_SECONDS, for the times of a status list from elsewhere (default: the system clock, 60 s). */
      now?: () => Date
      skewSeconds?: number
    },
  ) {
    this.localPrefix = `${deps.publicBaseUrl}/api/status-lists/`
  }

  async check(entry: unknown, issuerDid: string, memo?: StatusListMemo): Promise<StatusState> {
    if (entry === undefined) return { state: 'active' }
    if (typeof entry !== 'object' || entry === null)
      return { state: 'unknown', reason: 'credentialStatus is not an object' }
    const { type, statusPurpose, statusListIndex, statusListCredential } = entry as Record<string, unknown>
    if (type !== 'BitstringStatusListEntry' && type !== 'StatusList2021Entry')
      return { state: 'unknown', reason: `unsupported credentialStatus type ${JSON.stringify(type)}` }
    if (statusPurpose !== 'revocation')
      return { state: 'unknown', reason: `unsupported statusPurpose ${JSON.stringify(statusPurpose)}` }
    const index = Number(statusListIndex)
    if (typeof statusListIndex !== 'string' || !Number.isSafeInteger(index) || index < 0 || index >= MAX_INDEX)
      return { state: 'unknown', reason: 'statusListIndex is not a valid index' }
    if (typeof statusListCredential !== 'string') return { state: 'unknown', reason: 'statusListCredential is missing' }
    try {
      const revoked = statusListCredential.startsWith(this.localPrefix)
        ? await this.localBit(localListId(statusListCredential.slice(this.localPrefix.length)), issuerDid, index)
        : statusBit(await this.remoteBitsOnce(statusListCredential, issuerDid, memo), index)
      return revoked ? { state: 'revoked' } : { state: 'active' }
    } catch (error) {
      return { state: 'unknown', reason: `status list ${statusListCredential}: ${(error as Error).message}` }
    }
  }

  /**
   * An IETF Token Status List reference (`status.status_list` {idx, uri}, draft-ietf-oauth-status-list
   * §6.1) of an SD-JWT VC from `issuer`: a list this service publishes is read from the database
   * (the same bits as its W3C form); any other is fetched, its `statuslist+jwt` verified with the
   * issuer's key (found as for the credential), `sub` = the URI, and the status at `idx` read.
   * Any status other than 0 (VALID) counts as revoked.
   */
  async checkToken(reference: unknown, issuer: string, memo?: StatusListMemo): Promise<StatusState> {
    if (typeof reference !== 'object' || reference === null)
      return { state: 'unknown', reason: 'status.status_list is not an object' }
    const { idx, uri } = reference as Record<string, unknown>
    if (typeof idx !== 'number' || !Number.isSafeInteger(idx) || idx < 0 || idx >= MAX_INDEX)
      return { state: 'unknown', reason: 'status_list.idx is not a valid index' }
    if (typeof uri !== 'string') return { state: 'unknown', reason: 'status_list.uri is missing' }
    const local =
      uri.startsWith(this.localPrefix) && uri.endsWith(TOKEN_SUFFIX)
        ? uri.slice(this.localPrefix.length, -TOKEN_SUFFIX.length)
        : undefined
    try {
      const status =
        local !== undefined && /^[A-Za-z0-9-]+$/.test(local)
          ? Number(await this.localBit(local, issuer, idx))
          : tokenStatusAt(await this.remoteTokenOnce(uri, issuer, memo), idx)
      return status === 0 ? { state: 'active' } : { state: 'revoked' }
    } catch (error) {
      return { state: 'unknown', reason: `status list ${uri}: ${(error as Error).message}` }
    }
  }

  /**
   * An IETF Token Status List reference of a credential whose issuer is known by its certificates
   * (an mdoc's MSO, ISO/IEC 18013-5 as draft-ietf-oauth-status-list §6.3 extends it): the list is
   * fetched in CWT form (§5.2), its `x5chain` judged by `trustsChain` before its signature is
   * verified with the leaf's key, `sub` must be the URI and `exp` not passed. Only lists elsewhere:
   * this service's lists belong to its own issuers, whom a credential names by DID.
   */
  async checkCwtToken(
    reference: unknown,
    trustsChain: (chain: Uint8Array[]) => Promise<boolean>,
    memo?: StatusListMemo,
  ): Promise<StatusState> {
    if (typeof reference !== 'object' || reference === null)
      return { state: 'unknown', reason: 'status.status_list is not an object' }
    const { idx, uri } = reference as Record<string, unknown>
    if (typeof idx !== 'number' || !Number.isSafeInteger(idx) || idx < 0 || idx >= MAX_INDEX)
      return { state: 'unknown', reason: 'status_list.idx is not a valid index' }
    if (typeof uri !== 'string') return { state: 'unknown', reason: 'status_list.uri is missing' }
    if (uri.startsWith(this.localPrefix))
      return {
        state: 'unknown',
        reason: `status list ${uri}: belongs to an issuer of this service, not to this credential's`,
      }
    try {
      let read = memo?.get(`cwt ${uri}`) as Promise<VerifiedStatusListCwt> | undefined
      if (!read) {
        read = this.remoteCwt(uri, trustsChain)
        memo?.set(`cwt ${uri}`, read)
      }
      const status = (await read).statusAt(idx)
      return status === 0 ? { state: 'active' } : { state: 'revoked' }
    } catch (error) {
      return { state: 'unknown', reason: `status list ${uri}: ${(error as Error).message}` }
    }
  }

  private async remoteCwt(
    uri: string,
    trustsChain: (chain: Uint8Array[]) => Promise<boolean>,
  ): Promise<VerifiedStatusListCwt> {
    const res = await this.deps.httpGet(uri, { accept: STATUS_LIST_CWT_MEDIA_TYPE })
    if (res.status !== 200) throw new Error(`answered ${res.status}`)
    const token = await readTokenStatusListCwt(res.body, { chain: trustsChain })
    if (token.sub !== uri) throw new Error(`its sub is not ${uri}`)
    const now = (this.deps.now?.() ?? new Date()).getTime() / 1000
    if (token.exp !== undefined && !(token.exp > now - (this.deps.skewSeconds ?? 60)))
      throw new Error('has expired (exp)')
    return token
  }

  private remoteTokenOnce(uri: string, issuer: string, memo: StatusListMemo | undefined): Promise<string> {
    if (!memo) return this.remoteToken(uri, issuer)
    const key = `token ${issuer} ${uri}`
    let token = memo.get(key) as Promise<string> | undefined
    if (!token) memo.set(key, (token = this.remoteToken(uri, issuer)))
    return token
  }

  private async remoteToken(uri: string, issuer: string): Promise<string> {
    const res = await this.deps.httpGet(uri, { accept: STATUS_LIST_JWT_MEDIA_TYPE })
    if (res.status !== 200) throw new Error(`answered ${res.status}`)
    const jwt = Buffer.from(res.body).toString('utf8').trim()
    const decoded = decodeCompactJws(jwt)
    if (!decoded) throw new Error('is not a JWT')
    // The token is the credential issuer's: its `iss` must be the credential's, and its key found the same way.
    if (decoded.payload.iss !== undefined && decoded.payload.iss !== issuer)
      throw new Error('is not signed by the credential issuer')
    const kid = typeof decoded.header.kid === 'string' ? decoded.header.kid : undefined
    let key
    try {
      key = await resolveIssuerKey(issuer, kid, {
        resolver: this.deps.resolver,
        httpGet: this.deps.httpGet,
        publicBaseUrl: this.deps.publicBaseUrl,
      })
    } catch (error) {
      throw new Error(`its key: ${(error as Error).message}`, { cause: error })
    }
    try {
      // RFC 7519 §4.1.4-5: exp and nbf with the configured leeway, on the service's clock.
      await jwtVerify(jwt, key.key, {
        algorithms: [key.alg],
        typ: 'statuslist+jwt',
        subject: uri,
        currentDate: this.deps.now?.() ?? new Date(),
        clockTolerance: this.deps.skewSeconds ?? 60,
      })
    } catch (error) {
      throw new Error(`its signature or claims: ${(error as Error).message}`, { cause: error })
    }
    return jwt
  }

  private async localBit(listId: string, issuerDid: string, index: number): Promise<boolean> {
    const list = await repo.findStatusByte(this.deps.db, listId, index)
    if (!list) throw new Error('not found')
    // A credential may only point at its own issuer's list (the issuer signs as one of its signing DIDs).
    if (list.issuer_did !== issuerDid && list.issuer_did !== (await this.deps.issuerOf(issuerDid)))
      throw new Error('belongs to another issuer')
    if (list.byte === null) throw new RangeError(`status index ${index} is outside the list`)
    return statusBit(Uint8Array.of(list.byte), index & 7)
  }

  private remoteBitsOnce(url: string, issuerDid: string, memo: StatusListMemo | undefined): Promise<Uint8Array> {
    if (!memo) return this.remoteBits(url, issuerDid)
    const key = `${issuerDid} ${url}`
    let bits = memo.get(key) as Promise<Uint8Array> | undefined
    if (!bits) memo.set(key, (bits = this.remoteBits(url, issuerDid)))
    return bits
  }

  private async remoteBits(url: string, issuerDid: string): Promise<Uint8Array> {
    const res = await this.deps.httpGet(url, { accept: 'application/vc+jwt, application/jwt' })
    if (res.status !== 200) throw new Error(`answered ${res.status}`)
    const now = this.deps.now?.() ?? new Date()
    const skew = this.deps.skewSeconds ?? 60
    const jws = Buffer.from(res.body).toString('utf8').trim()
    let verified
    try {
      verified = await verifyDidJws(this.deps.resolver, jws, 'assertionMethod', {
        currentDate: now,
        clockTolerance: skew,
      })
    } catch (error) {
      if (error instanceof JwtClaimRejected) throw new Error(`its ${error.message}`, { cause: error })
      throw new Error(error instanceof JwsRejected ? `its signature: ${error.message}` : 'could not be read', {
        cause: error,
      })
    }
    if (verified.did !== issuerDid) throw new Error('is not signed by the credential issuer')
    const list = datesAndSubjectOf(this.deps.formats.statusListCredential(jws, verified.payload))
    if (list.issuer !== undefined && list.issuer !== issuerDid)
      throw new Error('names another issuer than the one that signed it')
    // Bitstring Status List §3.2: a list outside its validity period is a STATUS_VERIFICATION_ERROR,
    // so a stale list a server keeps serving never vouches for a credential.
    const seconds = now.getTime() / 1000
    if (list.validUntil !== undefined && !(list.validUntil > seconds - skew))
      throw new Error('has expired (validUntil)')
    if (list.validFrom !== undefined && !(list.validFrom <= seconds + skew))
      throw new Error('is not valid yet (validFrom)')
    const encoded = list.subject?.encodedList
    if (typeof encoded !== 'string') throw new Error('has no encodedList')
    return decodeStatusList(encoded)
  }
}

/**
 * What is checked of a status-list credential: its issuer, subject and validity period (VCDM 2.0
 * validFrom/validUntil, VCDM 1.1 issuanceDate/expirationDate; an unreadable date counts as past).
 */
function datesAndSubjectOf(vc: Record<string, unknown> | undefined): {
  issuer?: unknown
  subject?: { encodedList?: unknown }
  validFrom?: number
  validUntil?: number
} {
  const issuer = typeof vc?.issuer === 'object' && vc.issuer !== null ? (vc.issuer as { id?: unknown }).id : vc?.issuer
  const seconds = (value: unknown) =>
    value === undefined ? undefined : typeof value === 'string' ? Date.parse(value) / 1000 : Number.NaN
  return {
    issuer,
    subject: vc?.credentialSubject as { encodedList?: unknown } | undefined,
    validFrom: seconds(vc?.validFrom ?? vc?.issuanceDate),
    validUntil: seconds(vc?.validUntil ?? vc?.expirationDate),
  }
}
