import { RANGE_PARAMS_LABEL } from '../../crypto/bbs/anonymous-proof-format.js'
import { decodeBbsVerificationMethod } from '../../crypto/bbs/bbs-key-text.js'
import { decodeDidKey } from '../../crypto/did-key.js'
import { DID_KEY_BBS_PARAMS_LABEL } from '../identity/signing-identities.js'
import type { DidDocument } from '../did/did-document.js'
import type { DidResolver } from '../did/did-resolver.js'

export interface PublishedBbsKey {
  issuer: string
  publicKey: Uint8Array
  paramsLabel: string
  rangeParamsLabel?: string
}

/**
 * The BBS key `<issuer DID>#<fragment>` as the issuer's DID document publishes it (the same
 * resolution as GET /api/did/:did), only when listed under assertionMethod. A miss on the
 * resolver's short cache is retried once fresh (a key made since), as verifyDidJws does.
 * Throws when the DID cannot be resolved; undefined when the document has no such BBS method.
 */
export async function resolveBbsKey(
  resolver: DidResolver,
  verificationMethod: string,
): Promise<PublishedBbsKey | undefined> {
  const hash = verificationMethod.indexOf('#')
  if (!verificationMethod.startsWith('did:') || hash < 0) return undefined
  const issuer = verificationMethod.slice(0, hash)
  // A key from before signing identities (legacy-issuer-keys.ts) verifies what it signed then.
  const legacy = await resolver.legacyAssertionMethod(verificationMethod)
  if (legacy) return withIssuer(issuer, decodeBbsVerificationMethod(legacy))
  // A did:key's own BLS key: the params label is the fixed one of did:key BBS keys.
  if (issuer.startsWith('did:key:')) return withIssuer(issuer, didKeyBbsKey(issuer, verificationMethod))
  const lookup = async (fresh: boolean) =>
    bbsMethodIn((await resolver.resolve(issuer, { fresh })).didDocument, verificationMethod)
  return withIssuer(issuer, (await lookup(false)) ?? (await lookup(true)))
}

function withIssuer(issuer: string, found: Omit<PublishedBbsKey, 'issuer'> | undefined): PublishedBbsKey | undefined {
  return found && { issuer, ...found }
}

function didKeyBbsKey(did: string, verificationMethod: string): Omit<PublishedBbsKey, 'issuer'> | undefined {
  const fragment = did.slice('did:key:'.length)
  if (verificationMethod !== `${did}#${fragment}`) return undefined
  try {
    const { codec, publicKey } = decodeDidKey(did)
    return codec === 'bls12381g2'
      ? { publicKey, paramsLabel: DID_KEY_BBS_PARAMS_LABEL, rangeParamsLabel: RANGE_PARAMS_LABEL }
      : undefined
  } catch {
    return undefined
  }
}

function bbsMethodIn(doc: DidDocument, id: string) {
  const absolute = (value: string) => (value.startsWith('#') ? `${doc.id}${value}` : value)
  const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as unknown[]) : []
  const assertion = Array.isArray(doc.assertionMethod) ? (doc.assertionMethod as unknown[]) : []
  // DID Core §5.3: by reference (an id string) or embedded.
  for (const reference of assertion) {
    const method =
      typeof reference === 'string'
        ? absolute(reference) === id
          ? methods.find((m) => isRecord(m) && typeof m.id === 'string' && absolute(m.id) === id)
          : undefined
        : reference
    if (isRecord(method) && typeof method.id === 'string' && absolute(method.id) === id)
      return decodeBbsVerificationMethod(method)
  }
  return undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
