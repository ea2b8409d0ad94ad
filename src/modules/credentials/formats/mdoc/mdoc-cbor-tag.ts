import { DataItem } from '@owf/mdoc'
import { addExtension } from 'cbor-x'

/**
 * Tag 24, the encoded CBOR data item (RFC 8949 §3.4.5.1; ISO/IEC 18013-5 §8.1 `#6.24(bstr .cbor)`),
 * read into @owf/mdoc's DataItem again before the library decodes. cbor-x keeps one extension
 * per tag for the whole process, and other mdoc and COSE libraries (@owf/cose, loaded by the
 * status list's CWT form; @animo-id/mdoc) register their own for tag 24: the last one loaded
 * would otherwise decode for @owf/mdoc, whose structures then refuse what they read ("Expected
 * DataItem"). The same decoder @owf/mdoc registers on load; encoding is unaffected (cbor-x
 * encodes each class by its own extension).
 */
export function claimTag24(): void {
  // The decoder only: with a `Class`, cbor-x would also prepend another encoder entry on every call.
  // Its typings ask for `Class` and `encode`, but addExtension registers a decoder without them.
  const decoderOnly = { tag: 24, decode: (buffer: Uint8Array) => DataItem.fromBuffer(buffer) }
  addExtension(decoderOnly as unknown as Parameters<typeof addExtension>[0])
}
