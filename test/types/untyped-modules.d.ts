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
  export function checkStatus(options: Record<string, unknown>): Promise<{ verified: boolean; results?: Array<{ status: boolean }>; error?: Error }>
}
