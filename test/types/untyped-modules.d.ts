// Libraries the tests use that ship no type declarations: only what the tests call.

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export interface BitstringStatusList {
    length: number
    getStatus(index: number): boolean
    setStatus(index: number, status: boolean): void
    encode(): Promise<string>
  }
  export function createList(options: { length: number }): Promise<BitstringStatusList>
  export function decodeList(options: { encodedList: string }): Promise<BitstringStatusList>
  export function checkStatus(
    options: Record<string, unknown>,
  ): Promise<{ verified: boolean; results?: Array<{ status: boolean }>; error?: Error }>
  export function statusTypeMatches(options: { credential: Record<string, unknown> }): boolean
  export function getCredentialStatus(options: {
    credential: Record<string, unknown>
    statusPurpose: string
  }): Record<string, unknown>
}

declare module '@grottonetworking/bbs-signatures' {
  export const API_ID_BBS_SHA: string
  export interface Generators {
    P1: unknown
    Q1: unknown
    H: unknown[]
  }
  export function messages_to_scalars(messages: Uint8Array[], apiId: string): Promise<bigint[]>
  export function prepareGenerators(count: number, apiId: string): Promise<Generators>
  export function publicFromPrivate(secretKey: Uint8Array): Uint8Array
  export function sign(
    secretKey: Uint8Array,
    publicKey: Uint8Array,
    header: Uint8Array,
    messages: bigint[],
    generators: Generators,
    apiId: string,
  ): Promise<Uint8Array>
  export function verify(
    publicKey: Uint8Array,
    signature: Uint8Array,
    header: Uint8Array,
    messages: bigint[],
    generators: Generators,
    apiId: string,
  ): Promise<boolean>
  export function proofVerify(
    publicKey: Uint8Array,
    proof: Uint8Array,
    header: Uint8Array,
    presentationHeader: Uint8Array,
    disclosed: bigint[],
    disclosedIndexes: number[],
    generators: Generators,
    apiId: string,
  ): Promise<boolean>
  export function numUndisclosed(proof: Uint8Array): number
}
