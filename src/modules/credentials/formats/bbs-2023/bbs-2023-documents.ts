import type { DidResolver } from '../../../did/did-resolver.js'
import { verificationMethodFor } from '../../../did/verification-keys.js'
import { STATIC_CONTEXTS, type LocalDocuments } from '../shared/document-loader.js'
import type { Documents } from './bbs-2023-core.js'

const DID_V1 = 'https://www.w3.org/ns/did/v1'
const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'
const MAX_CONTEXTS = 16

/**
 * The JSON-LD documents a bbs-2023 operation needs beyond the bundled contexts, gathered on the
 * event loop before the work goes to a worker (which has no database and no resolver): the
 * contexts the document names that this service serves (a schema's), and for verification the
 * issuer's verification method and its controller document.
 */
export class MissingDocumentError extends Error {
  override name = 'MissingDocumentError'
}

/** Every context URL the document names (top level and embedded), resolved through `local` unless bundled. */
export async function contextDocuments(document: unknown, local: LocalDocuments | undefined): Promise<Documents> {
  const urls = new Set<string>()
  collectContexts(document, urls)
  if (urls.size > MAX_CONTEXTS)
    throw new MissingDocumentError(`it names ${urls.size} JSON-LD contexts; at most ${MAX_CONTEXTS} are read`)
  const documents: Documents = {}
  for (const url of urls) {
    if (STATIC_CONTEXTS.has(url)) continue
    const found = local ? await local(url) : undefined
    if (found === undefined)
      throw new MissingDocumentError(
        `it names the JSON-LD context ${url}, which this service neither bundles nor serves (contexts are never fetched)`,
      )
    documents[url] = found
  }
  return documents
}

function collectContexts(value: unknown, urls: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectContexts(item, urls)
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const [key, child] of Object.entries(value)) {
    if (key !== '@context') {
      collectContexts(child, urls)
      continue
    }
    for (const entry of Array.isArray(child) ? child : [child]) {
      if (typeof entry === 'string') urls.add(entry)
      else collectContexts(entry, urls)
    }
  }
}

/**
 * The verification method `id` as a Multikey, and its controller document listing it as an
 * assertion method only, both as the Data Integrity verifier loads them (VC Data Integrity §4.2
 * "retrieve verification method", Controlled Identifiers §3.3). Undefined when the DID does not
 * authorize the key for assertions or it is no Multikey.
 */
export async function verificationMethodDocuments(
  resolver: DidResolver,
  id: string,
): Promise<{ did: string; documents: Documents } | undefined> {
  const did = id.split('#')[0]!
  // did:key documents default to the key type's legacy suite (Bls12381G2Key2020); bbs-2023 reads
  // Multikeys. Methods that do not compute their document ignore the option.
  const { didDocument } = await resolver.resolve(did, { publicKeyFormat: 'Multikey' })
  const method = verificationMethodFor(didDocument, id, 'assertionMethod')
  if (!method || method.type !== 'Multikey' || typeof method.publicKeyMultibase !== 'string') return undefined
  const multikey = { id, type: 'Multikey', controller: did, publicKeyMultibase: method.publicKeyMultibase }
  return {
    did,
    documents: {
      [id]: { '@context': MULTIKEY_V1, ...multikey },
      [did]: { '@context': [DID_V1, MULTIKEY_V1], id: did, verificationMethod: [multikey], assertionMethod: [id] },
    },
  }
}
