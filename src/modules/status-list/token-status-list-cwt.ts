import { type KeyObject, sign, verify, X509Certificate } from 'node:crypto'
import { CoseKey, cborDecode, cborEncode, RegisteredCwtClaimKey, Sign1, SignatureAlgorithm } from '@owf/cose'
import { type BitsPerStatus, StatusList, StatusListCwtClaimKey } from '@owf/token-status-list'
import { tokenStatuses } from './token-status-list.js'

/** draft-ietf-oauth-status-list §5.2: the media type of a Status List Token in CWT form (also its `typ`, RFC 9596). */
export const STATUS_LIST_CWT_MEDIA_TYPE = 'application/statuslist+cwt'

/** COSE header labels (RFC 9052 §3.1, RFC 9596 `typ`, RFC 9360 `x5chain`). */
const ALG = 1
const TYP = 16
const X5CHAIN = 33

/** The key that signs the CWT form: an mdoc Document Signer (P-256) and its DER chain, the DS certificate first. */
export interface CwtStatusListSigner {
  privateKey: KeyObject
  chain: Uint8Array[]
}

/** A Status List Token in CWT form whose signature was verified with its leaf certificate's key. */
export interface VerifiedStatusListCwt {
  sub: string
  iat: number
  exp?: number
  ttl?: number
  /** The `x5chain` as carried (DER, leaf first): the caller decides whether it trusts it. */
  chain: Uint8Array[]
  statusAt(index: number): number
}

/** Why a Status List Token in CWT form was refused (not COSE, wrong header, bad signature, untrusted chain). */
export class StatusListCwtRejected extends Error {}

/**
 * The same bits as signTokenStatusList, as an IETF Status List Token in CWT form
 * (draft-ietf-oauth-status-list §5.2): a COSE_Sign1 (RFC 9052 §4.2, tag 18, ES256) with protected
 * `alg` -7, `typ` application/statuslist+cwt and `x5chain` (RFC 9360), over the claims `sub` (2) =
 * the list's URI, `iat` (6), `exp` (4), `ttl` (65534) and `status_list` (65533) = {bits: 1, lst:
 * ZLIB-deflated, LSB-first}. @owf/token-status-list packs and compresses the list, @owf/cose
 * encodes the CBOR and builds the Sig_structure; node:crypto signs it. The claims map is built here
 * rather than by the library's StatusListCwtPayload, which writes `aggregation_uri: undefined`
 * (CBOR simple value 23) where §4.3 allows only a text string or nothing.
 */
export async function signTokenStatusListCwt(
  bits: Uint8Array,
  claims: { uri: string; iat: number; exp: number; ttl: number },
  signer: CwtStatusListSigner,
): Promise<Uint8Array> {
  if (signer.chain.length === 0) throw new Error('the signer has no certificate chain')
  const statusList = new Map<string, unknown>([
    ['bits', 1],
    ['lst', new StatusList(tokenStatuses(bits), 1).compressStatusListToBytes()],
  ])
  const payload = cborEncode(
    new Map<number, unknown>([
      [RegisteredCwtClaimKey.Subject, claims.uri],
      [RegisteredCwtClaimKey.IssuedAt, claims.iat],
      [RegisteredCwtClaimKey.ExpirationTime, claims.exp],
      [StatusListCwtClaimKey.TimeToLive, claims.ttl],
      [StatusListCwtClaimKey.StatusList, statusList],
    ]),
  )
  const sign1 = Sign1.create({
    protectedHeaders: new Map<number, unknown>([
      [ALG, SignatureAlgorithm.ES256],
      [TYP, STATUS_LIST_CWT_MEDIA_TYPE],
      // RFC 9360 §2: one certificate as a bstr, several as an array.
      [X5CHAIN, signer.chain.length === 1 ? signer.chain[0] : signer.chain],
    ]),
    payload,
  })
  const signingKey = CoseKey.fromJwk({ ...signer.privateKey.export({ format: 'jwk' }) })
  await sign1.sign(
    { signingKey, algorithm: SignatureAlgorithm.ES256 },
    {
      // RFC 9053 §2.1: an ES256 signature is r‖s, 32 bytes each.
      sign: async ({ toBeSigned }) =>
        new Uint8Array(sign('sha256', toBeSigned, { key: signer.privateKey, dsaEncoding: 'ieee-p1363' })),
    },
  )
  return sign1.encode()
}

/**
 * Reads a Status List Token in CWT form: checks `typ` and `alg` (ES256), lets `trust` judge the
 * `x5chain` (it throws or answers false to refuse), then verifies the COSE_Sign1 signature with the
 * leaf certificate's key. Lifetime (`exp`) is the caller's to judge against its clock.
 */
export async function readTokenStatusListCwt(
  bytes: Uint8Array,
  trust: { chain(chain: Uint8Array[]): boolean | Promise<boolean> },
): Promise<VerifiedStatusListCwt> {
  let sign1: Sign1
  try {
    sign1 = Sign1.decode(bytes)
  } catch (error) {
    throw new StatusListCwtRejected('is not a COSE_Sign1', { cause: error })
  }
  const headers = sign1.protectedHeaders.headers
  if (headers.get(TYP) !== STATUS_LIST_CWT_MEDIA_TYPE)
    throw new StatusListCwtRejected(`its typ is not ${STATUS_LIST_CWT_MEDIA_TYPE}`)
  if (headers.get(ALG) !== SignatureAlgorithm.ES256) throw new StatusListCwtRejected('its alg is not ES256')
  const chain = sign1.x5chain
  if (!chain?.length) throw new StatusListCwtRejected('has no x5chain')
  if (!(await trust.chain(chain))) throw new StatusListCwtRejected('its certificate chain is not trusted')
  let valid: boolean
  try {
    const key = new X509Certificate(chain[0]!).publicKey
    valid = verify('sha256', sign1.toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, sign1.signature)
  } catch (error) {
    throw new StatusListCwtRejected('its signature could not be checked', { cause: error })
  }
  if (!valid) throw new StatusListCwtRejected('its signature does not verify')
  const read = readClaims(sign1.payload)
  return { ...read.claims, chain, statusAt: (index) => read.list.getStatus(index) }
}

/**
 * The claims of §5.2 read with @owf/cose's CBOR decoder; not with the library's
 * StatusListCwtPayload, which refuses a `status_list` without `aggregation_uri` (optional in §4.3).
 */
function readClaims(payload: Uint8Array | null): {
  claims: Pick<VerifiedStatusListCwt, 'sub' | 'iat' | 'exp' | 'ttl'>
  list: StatusList
} {
  let claims: unknown
  try {
    claims = payload ? cborDecode(payload) : undefined
  } catch (error) {
    throw new StatusListCwtRejected('its payload is not CBOR', { cause: error })
  }
  if (!(claims instanceof Map)) throw new StatusListCwtRejected('its payload is not a claims map')
  const sub = claims.get(RegisteredCwtClaimKey.Subject)
  const iat = claims.get(RegisteredCwtClaimKey.IssuedAt)
  const exp = claims.get(RegisteredCwtClaimKey.ExpirationTime)
  const ttl = claims.get(StatusListCwtClaimKey.TimeToLive)
  const statusList = claims.get(StatusListCwtClaimKey.StatusList)
  if (typeof sub !== 'string' || typeof iat !== 'number') throw new StatusListCwtRejected('lacks sub or iat')
  if ((exp !== undefined && typeof exp !== 'number') || (ttl !== undefined && typeof ttl !== 'number'))
    throw new StatusListCwtRejected('has a non-numeric exp or ttl')
  if (!(statusList instanceof Map)) throw new StatusListCwtRejected('has no status_list')
  const bits = statusList.get('bits')
  const lst = statusList.get('lst')
  if (![1, 2, 4, 8].includes(bits) || !(lst instanceof Uint8Array))
    throw new StatusListCwtRejected('its status_list is not {bits, lst}')
  let list: StatusList
  try {
    list = StatusList.decompressStatusListFromBytes(lst, bits as BitsPerStatus)
  } catch (error) {
    throw new StatusListCwtRejected('its lst does not inflate', { cause: error })
  }
  return { claims: { sub, iat, exp, ttl }, list }
}
