// The Digital Bazaar Data Integrity libraries of the bbs-2023 cryptosuite ship no types: only what the service calls.

declare module '@digitalbazaar/bls12-381-multikey' {
  export const ALGORITHMS: {
    readonly BBS_BLS12381_SHA256: 'BBS-BLS12-381-SHA-256'
    readonly BBS_BLS12381_SHAKE256: 'BBS-BLS12-381-SHAKE-256'
  }
  export interface BbsSigner {
    id?: string
    algorithm: string
    publicKey: Uint8Array
    sign(options: { data: Uint8Array }): Promise<Uint8Array>
  }
  export interface Bls12381KeyPair {
    id?: string
    controller?: string
    algorithm: string
    publicKey: Uint8Array
    secretKey?: Uint8Array
    publicKeyMultibase: string
    signer(): BbsSigner
  }
  export function generateBbsKeyPair(options: {
    algorithm: string
    id?: string
    controller?: string
    seed?: Uint8Array
  }): Promise<Bls12381KeyPair & { secretKey: Uint8Array }>
  export function fromRaw(options: {
    algorithm: string
    publicKey: Uint8Array
    secretKey?: Uint8Array
  }): Promise<Bls12381KeyPair>
}

declare module '@digitalbazaar/bbs-signatures' {
  export const CIPHERSUITES: {
    readonly BLS12381_SHA256: 'BLS12-381-SHA-256'
    readonly BLS12381_SHAKE256: 'BLS12-381-SHAKE-256'
  }
  export function secretKeyToPublicKey(options: { secretKey: Uint8Array; ciphersuite: string }): Promise<Uint8Array>
  export function sign(options: {
    secretKey: Uint8Array
    publicKey?: Uint8Array
    header: Uint8Array
    messages: Uint8Array[]
    ciphersuite: string
  }): Promise<Uint8Array>
  export function verifySignature(options: {
    publicKey: Uint8Array
    signature: Uint8Array
    header: Uint8Array
    messages: Uint8Array[]
    ciphersuite: string
  }): Promise<boolean>
  export function verifyProof(options: {
    publicKey: Uint8Array
    proof: Uint8Array
    header: Uint8Array
    presentationHeader: Uint8Array
    disclosedMessages: Uint8Array[]
    disclosedMessageIndexes: number[]
    ciphersuite: string
  }): Promise<boolean>
}

declare module '@digitalbazaar/bbs-2023-cryptosuite' {
  /** A cryptosuite object as @digitalbazaar/data-integrity's DataIntegrityProof takes it. */
  export interface Cryptosuite {
    name: string
    requiredAlgorithm: string
    options: Record<string, unknown>
    createVerifyData(options: {
      cryptosuite: Cryptosuite
      document: object
      proof: object
      documentLoader: unknown
    }): Promise<unknown>
  }
  export function createSignCryptosuite(options?: { mandatoryPointers?: string[] }): Cryptosuite
  export function createDiscloseCryptosuite(options?: {
    proofId?: string
    selectivePointers?: string[]
    presentationHeader?: Uint8Array
  }): Cryptosuite
  export function createVerifyCryptosuite(options?: { expectedPresentationHeader?: Uint8Array }): Cryptosuite
}
