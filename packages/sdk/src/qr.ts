export type QrPayloadKind = 'oid4vci-offer' | 'oid4vp-request' | 'spec-offer' | 'spec-request'

export function parseQrPayload(_text: string): { kind: QrPayloadKind; value: string; raw: unknown } {
  throw new Error('not implemented')
}
