// The Digital Bazaar JSON-LD context packages ship no types: each exports a Map of context URL to document.
declare module '@digitalbazaar/citizenship-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/multikey-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/vdl-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/vdl-aamva-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/vc-bitstring-status-list-context' {
  export const contexts: Map<string, Record<string, unknown>>
}

// Data Integrity (W3C VC Data Integrity 1.0) through the Digital Bazaar libraries: only what the service and its tests call.
declare module '@digitalbazaar/vc' {
  type Loader = (url: string) => Promise<{ contextUrl: null | undefined; documentUrl: string; document: unknown }>
  export interface VerifyResult {
    verified: boolean
    error?: Error & { errors?: Error[] }
    results?: Array<{ verified: boolean; error?: Error; proof?: Record<string, unknown> }>
    statusResult?: { verified: boolean }
  }
  export interface PresentationResult extends VerifyResult {
    presentationResult?: VerifyResult
    credentialResults?: VerifyResult[]
  }
  export function issue(options: {
    credential: Record<string, unknown>
    suite: unknown
    documentLoader: Loader
    now?: Date | string
  }): Promise<Record<string, unknown>>
  export function derive(options: {
    verifiableCredential: Record<string, unknown>
    suite: unknown
    documentLoader: Loader
  }): Promise<Record<string, unknown>>
  export function verifyCredential(options: {
    credential: unknown
    suite: unknown
    documentLoader: Loader
    now?: Date | string
    maxClockSkew?: number
    checkStatus?: (options: unknown) => Promise<{ verified: boolean }>
  }): Promise<VerifyResult>
  export function createPresentation(options: {
    verifiableCredential?: unknown
    holder?: string
    id?: string
    version?: number
  }): Record<string, unknown>
  export function signPresentation(options: {
    presentation: Record<string, unknown>
    suite: unknown
    challenge: string
    domain?: string
    documentLoader: Loader
  }): Promise<Record<string, unknown>>
  export function verify(options: {
    presentation: unknown
    suite: unknown
    challenge: string
    domain?: string
    documentLoader: Loader
    now?: Date | string
    maxClockSkew?: number
    checkStatus?: (options: unknown) => Promise<{ verified: boolean }>
  }): Promise<PresentationResult>
  /** Throws an Error naming the first way the document is not a VCDM 1.1/2.0 credential. */
  export function _checkCredential(options: {
    credential: unknown
    now?: Date
    mode?: 'issue' | 'verify'
    maxClockSkew?: number
  }): void
  /** Throws an Error naming the first way the document is not a VCDM presentation. */
  export function _checkPresentation(presentation: unknown): void
}
declare module '@digitalbazaar/data-integrity' {
  export interface DataIntegritySigner {
    id: string
    algorithm: string
    sign(input: { data: Uint8Array }): Promise<Uint8Array>
  }
  export class DataIntegrityProof {
    constructor(options: { cryptosuite: unknown; signer?: DataIntegritySigner; date?: Date | string | null })
  }
}
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: { name: string }
}
declare module '@digitalbazaar/eddsa-jcs-2022-cryptosuite' {
  export function createSignCryptosuite(): { name: string }
  export function createVerifyCryptosuite(): { name: string }
}
declare module '@digitalbazaar/ed25519-multikey' {
  export interface Ed25519KeyPair {
    id?: string
    controller?: string
    publicKeyMultibase: string
    secretKeyMultibase?: string
    signer(): { id: string; algorithm: string; sign(input: { data: Uint8Array }): Promise<Uint8Array> }
    export(options?: {
      publicKey?: boolean
      secretKey?: boolean
      includeContext?: boolean
    }): Promise<Record<string, unknown>>
  }
  export function generate(options?: { id?: string; controller?: string; seed?: Uint8Array }): Promise<Ed25519KeyPair>
  export function from(key: Record<string, unknown>): Promise<Ed25519KeyPair>
}
declare module 'jsonld-signatures' {
  interface ProofResult {
    verified: boolean
    error?: Error
    proof?: Record<string, unknown>
    purposeResult?: { valid: boolean; controller?: { id?: string } }
  }
  const jsigs: {
    verify(
      document: unknown,
      options: { suite: unknown; purpose: unknown; documentLoader: (url: string) => Promise<unknown> },
    ): Promise<{ verified: boolean; error?: Error & { errors?: Error[] }; results?: ProofResult[] }>
    purposes: { AuthenticationProofPurpose: new (options: { challenge: string; domain?: string }) => unknown }
  }
  export default jsigs
}
declare module 'ed25519-signature-2020-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
