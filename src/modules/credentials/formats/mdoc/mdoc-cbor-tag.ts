import { DataItem } from '@owf/mdoc'
import { addExtension } from 'cbor-x'

/**
 * Tag 24, the encoded CBOR data item (RFC 8949 §3.4.5.1; ISO/IEC 18013-5 §8.1 `#6.24(bstr .cbor)`),
 * read into @owf/mdoc's DataItem again before the library decodes. cbor-x keeps one extension
 * per tag for the whole process, and other mdoc and COSE libraries (@owf/cose, loaded by the
 * status list's CWT form; @animo-id/mdoc) register their own for tag 24: the last one loaded
 * would otherwise decode for @owf/mdoc, whose structures then refuse what they read ("Expected
 * DataItem"). The same extension @owf/mdoc registers on load; encoding is unaffected (cbor-x
 * encodes each class by its own extension).
 */
export function claimTag24(): void {
  addExtension({
    Class: DataItem,
    tag: 24,
    encode: (instance: DataItem, encode: (value: unknown) => Uint8Array) => encode(instance.buffer),
    decode: (buffer: Uint8Array) => DataItem.fromBuffer(buffer),
  })
}
