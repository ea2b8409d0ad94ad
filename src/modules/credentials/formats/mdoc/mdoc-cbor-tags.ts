import { DataItem } from '@owf/mdoc'
import { addExtension } from 'cbor-x'

/**
 * cbor-x keeps one decoder per tag for the whole process, and both @owf/mdoc and @owf/cose
 * register their own DataItem class for tag 24 (RFC 8949 §3.4.5.1 embedded CBOR) when loaded:
 * the one loaded last wins, and @owf/mdoc then refuses the other's DataItems. Its own class is
 * registered again before mdoc CBOR is read (the registration @owf/mdoc makes itself).
 */
export function useMdocDataItems(): void {
  addExtension({
    Class: DataItem,
    tag: 24,
    encode: (instance: DataItem, encode: (value: unknown) => Uint8Array) => encode(instance.buffer),
    decode: (buffer: Uint8Array) => DataItem.fromBuffer(buffer),
  })
}
