import { DataItem } from '@owf/mdoc'
import { addExtension } from 'cbor-x'

let claimed = false

/**
 * Makes CBOR tag 24 (RFC 8949 §3.4.5.1, ISO/IEC 18013-5 §8.1 `#6.24(bstr .cbor)`) decode to
 * @owf/mdoc's DataItem. @owf/cose (loaded by the status list's CWT form) registers its own DataItem
 * class for the same tag in the one shared cbor-x, and the last module loaded wins: @owf/mdoc's
 * decoders then refuse every IssuerSignedItem ("Expected DataItem"). Called before decoding,
 * once all modules are loaded; encoding is unaffected (cbor-x encodes each class by its own extension).
 */
export function claimTag24(): void {
  if (claimed) return
  claimed = true
  addExtension({
    Class: DataItem,
    tag: 24,
    encode: (instance: DataItem, encode: (value: unknown) => Uint8Array) => encode(instance.buffer),
    decode: (buffer: Uint8Array) => DataItem.fromBuffer(buffer),
  })
}
