export type HolderAlg = 'EdDSA' | 'ES256'

/** A holder's key pair on WebCrypto, named by its did:key. */
export interface HolderKey {
  did: string
  /** `${did}#${multibase}`: the verification method JWS headers name. */
  kid: string
  alg: HolderAlg
  publicJwk: JsonWebKey
  privateKey: CryptoKey
}

export function generateHolderKey(_o?: { alg?: HolderAlg; extractable?: boolean }): Promise<HolderKey> {
  throw new Error('not implemented')
}

export function exportHolderKey(_k: HolderKey): Promise<{ did: string; alg: HolderAlg; privateJwk: JsonWebKey }> {
  throw new Error('not implemented')
}

export function importHolderKey(_privateJwk: JsonWebKey, _o?: { extractable?: boolean }): Promise<HolderKey> {
  throw new Error('not implemented')
}
