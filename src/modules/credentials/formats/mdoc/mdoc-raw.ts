import { DataItem, cborEncode } from '@owf/mdoc'

/**
 * The IssuerSignedItemBytes of a namespace map as received (ISO/IEC 18013-5 §8.3.2.1.2.2):
 * digests are over these exact bytes, so they are read from the raw CBOR and never re-encoded.
 */
export type RawNamespaces = Map<string, DataItem[]>

/** `nameSpaces` of a raw (cbor-decoded) IssuerSigned map; throws when it has another shape. */
export function rawNamespacesOf(issuerSigned: unknown): RawNamespaces {
  if (!(issuerSigned instanceof Map)) throw new Error('IssuerSigned is not a map')
  const nameSpaces = issuerSigned.get('nameSpaces')
  const result: RawNamespaces = new Map()
  if (nameSpaces === undefined) return result
  if (!(nameSpaces instanceof Map)) throw new Error('IssuerSigned nameSpaces is not a map')
  for (const [namespace, items] of nameSpaces) {
    if (typeof namespace !== 'string' || !Array.isArray(items) || !items.every((i) => i instanceof DataItem))
      throw new Error('IssuerNameSpaces must map names to arrays of IssuerSignedItemBytes (tag 24)')
    result.set(namespace, items as DataItem[])
  }
  return result
}

/** The fields of one IssuerSignedItem (§8.3.2.1.2.2). */
export function issuerSignedItemOf(item: DataItem): { digestId: number; element: string; value: unknown } {
  const data = item.data
  if (!(data instanceof Map)) throw new Error('an IssuerSignedItem is not a map')
  const digestId = data.get('digestID')
  const element = data.get('elementIdentifier')
  if (typeof digestId !== 'number' || typeof element !== 'string' || !(data.get('random') instanceof Uint8Array))
    throw new Error('an IssuerSignedItem lacks digestID, random or elementIdentifier')
  return { digestId, element, value: data.get('elementValue') }
}

/** #6.24(bstr .cbor IssuerSignedItem) with the bstr exactly as received. */
export const taggedItemBytes = (item: DataItem): Uint8Array => cborEncode(item)
