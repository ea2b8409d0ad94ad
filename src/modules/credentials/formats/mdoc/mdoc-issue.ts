import type { KeyObject } from 'node:crypto'
import {
  DeviceKey,
  DeviceKeyInfo,
  Header,
  IssuerAuth,
  IssuerNamespaces,
  IssuerSigned,
  IssuerSignedItem,
  MobileSecurityObject,
  SignatureAlgorithm,
  ValidityInfo,
  ValueDigests,
  type TypedMap,
} from '@owf/mdoc'
import { ValidationError } from '../../../../errors.js'
import { createMdocContext, keyObjectSigner, keyObjectToCoseKey } from './mdoc-context.js'
import { toElementValue, type MdocDataType } from './mdoc-values.js'

export interface MdocStatusReference {
  uri: string
  idx: number
}

export interface IssueMdocInput {
  doctype: string
  /** namespace → element identifier → JSON value */
  namespaces: Record<string, Record<string, unknown>>
  /** namespace → element identifier → schema data_type; absent elements are encoded as given */
  types?: Record<string, Record<string, MdocDataType>>
  /** The Document Signer: a P-256 private key and its chain as DER, DS first (IACA root left out, 18013-5 §9.1.2.4). */
  signer: { privateKey: KeyObject; chain: Uint8Array[] }
  /** The holder's public P-256 key (JWK), bound as the MSO DeviceKey (18013-5 §9.1.2.4). */
  deviceKeyJwk: Record<string, unknown>
  validity: { signed: Date; validFrom: Date; validUntil: Date }
  /** Token Status List reference (draft-ietf-oauth-status-list §6.3; 18013-5 2nd ed. MSO `status`). */
  status?: MdocStatusReference
}

export interface IssuedMdoc {
  issuerSigned: Uint8Array
  /** The OpenID4VCI 1.0 Appendix A.2.4 credential: base64url of the IssuerSigned CBOR. */
  base64url: string
}

/** 18013-5 §9.1.2.4: tdate without fractions of seconds. */
const wholeSeconds = (d: Date): Date => new Date(Math.floor(d.getTime() / 1000) * 1000)

/** Digest IDs unique within a namespace, drawn at random so their order does not reveal the elements' (§9.1.2.5). */
function digestIds(count: number, random: (n: number) => Uint8Array): number[] {
  const ids = new Set<number>()
  while (ids.size < count) ids.add(Buffer.from(random(4)).readUInt32BE() & 0x7fffffff)
  return [...ids]
}

function publicP256Jwk(jwk: Record<string, unknown>): Record<string, unknown> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string')
    throw new ValidationError('the device key must be a public P-256 JWK')
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }
}

/**
 * Issues an mdoc (ISO/IEC 18013-5 §9.1.2): one IssuerSignedItem per element (32 random bytes of
 * salt), SHA-256 value digests over the tagged IssuerSignedItemBytes, an MSO with the device key,
 * the validity and the optional status reference, signed as COSE_Sign1 ES256 with x5chain in the
 * unprotected header (label 33, RFC 9360).
 */
export async function issueMdoc(input: IssueMdocInput): Promise<IssuedMdoc> {
  if (input.signer.chain.length === 0) throw new ValidationError('the Document Signer chain is empty')
  const { validFrom, validUntil, signed } = input.validity
  if (!(validFrom < validUntil)) throw new ValidationError('validFrom must be before validUntil')
  const ctx = createMdocContext(keyObjectSigner(input.signer.privateKey, SignatureAlgorithm.ES256))

  const namespaces = new Map<string, IssuerSignedItem[]>()
  const digests = new Map<string, Map<number, Uint8Array>>()
  for (const [namespace, elements] of Object.entries(input.namespaces)) {
    const entries = Object.entries(elements)
    const ids = digestIds(entries.length, ctx.crypto.random)
    const items = entries.map(([element, value], i) =>
      IssuerSignedItem.fromOptions({
        digestId: ids[i] as number,
        random: ctx.crypto.random(32),
        elementIdentifier: element,
        elementValue: toElementValue(element, value, input.types?.[namespace]?.[element]),
      }),
    )
    const nsDigests = new Map<number, Uint8Array>()
    for (const item of items)
      nsDigests.set(
        item.digestId,
        await ctx.crypto.digest({ digestAlgorithm: 'SHA-256', bytes: item.encode({ asDataItem: true }) }),
      )
    namespaces.set(namespace, items)
    digests.set(namespace, nsDigests)
  }

  const mso = MobileSecurityObject.create({
    docType: input.doctype,
    digestAlgorithm: 'SHA-256',
    valueDigests: ValueDigests.create({ digests }),
    deviceKeyInfo: DeviceKeyInfo.create({
      deviceKey: DeviceKey.fromJwk(publicP256Jwk(input.deviceKeyJwk)) as DeviceKey,
    }),
    validityInfo: ValidityInfo.create({
      signed: wholeSeconds(signed),
      validFrom: wholeSeconds(validFrom),
      validUntil: wholeSeconds(validUntil),
    }),
  })
  if (input.status) {
    // The library's MSO keeps keys it does not model; `status` follows draft-ietf-oauth-status-list §6.3.
    const extra = mso.decodedStructure as unknown as TypedMap<Record<string, unknown>>
    extra.set(
      'status',
      new Map([
        [
          'status_list',
          new Map<string, unknown>([
            ['idx', input.status.idx],
            ['uri', input.status.uri],
          ]),
        ],
      ]),
    )
  }

  const chain = input.signer.chain
  const issuerAuth = await IssuerAuth.create(
    {
      payload: mso,
      protectedHeaders: new Map([[Header.Algorithm, SignatureAlgorithm.ES256]]),
      unprotectedHeaders: new Map<number, unknown>([[Header.X5Chain, chain.length === 1 ? chain[0] : chain]]),
      signingKey: keyObjectToCoseKey(input.signer.privateKey),
      algorithm: SignatureAlgorithm.ES256,
    },
    ctx,
  )
  const issuerSigned = IssuerSigned.create({
    issuerNamespaces: IssuerNamespaces.create({ issuerNamespaces: namespaces }),
    issuerAuth,
  }).encode()
  return { issuerSigned, base64url: Buffer.from(issuerSigned).toString('base64url') }
}
