import { readFileSync } from 'node:fs'
import { contexts as citizenshipContexts } from '@digitalbazaar/citizenship-context'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import { contexts as bitstringStatusContexts } from '@digitalbazaar/vc-bitstring-status-list-context'
import { contexts as vdlAamvaContexts } from '@digitalbazaar/vdl-aamva-context'
import { contexts as vdlContexts } from '@digitalbazaar/vdl-context'
import { contexts as ed25519Signature2020Contexts } from 'ed25519-signature-2020-context'
import { ValidationError } from '../../../../errors.js'
import type { DidDocument } from '../../../did/did-document.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import type { LocalDocuments } from '../local-documents.js'

/** A JSON-LD document as jsonld.js's document loaders answer it (JSON-LD 1.1 API §9.4 RemoteDocument). */
export interface RemoteDocument {
  contextUrl: null
  documentUrl: string
  document: unknown
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>

export type { LocalDocuments }

// The W3C examples context (VCDM 2.0 §B.1: https://www.w3.org/ns/credentials/examples/v2) is in no npm package.
const examplesV2 = JSON.parse(
  readFileSync(new URL('./contexts/credentials-examples-v2.json', import.meta.url), 'utf8'),
) as unknown

/**
 * The JSON-LD contexts bundled with the service (DESIGN.md: never fetched at run time): VCDM 1.1
 * and 2.0, Bitstring Status List (what a VCDM 1.1 credential names for its status entry), Data
 * Integrity, Multikey, Ed25519Signature2020, the W3C examples, and the driving-licence and citizenship
 * vocabularies the W3C suites issue with. Each comes from its publisher's npm package.
 */
export const STATIC_CONTEXTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ...credentialsContexts,
  ...bitstringStatusContexts,
  ...dataIntegrityContexts,
  ...multikeyContexts,
  ...vdlContexts,
  ...vdlAamvaContexts,
  ...citizenshipContexts,
  ...ed25519Signature2020Contexts,
  ['https://www.w3.org/ns/credentials/examples/v2', examplesV2],
])

export interface DocumentLoaderOptions {
  /** What the service answers itself without HTTP (a schema's context: schema-context-documents.ts). */
  local?: LocalDocuments
  /** DID URLs (controller documents, verification methods) through the service's DID resolver. */
  resolver?: Pick<DidResolver, 'resolve'>
  /**
   * The only DIDs it may resolve: those of the proofs' verification methods (proofDids). A DID the
   * document names elsewhere, as a context say, is refused rather than fetched.
   */
  dids?: ReadonlySet<string>
}

/** Why the loader refused a URL: a credential naming it cannot be processed (a 400 where it is input). */
export class DocumentRefused extends ValidationError {}

/**
 * The document loader every JSON-LD operation here uses: bundled contexts first, then DID URLs
 * through the resolver, then what the service answers itself (`local`). Anything else is refused,
 * so a credential naming an unknown context fails to canonicalize instead of making the service
 * fetch it.
 */
export function createDocumentLoader(options: DocumentLoaderOptions = {}): DocumentLoader {
  const dids = options.resolver ? didDocuments(options.resolver) : undefined
  return async (url) => {
    const bundled = STATIC_CONTEXTS.get(url)
    if (bundled !== undefined) return { contextUrl: null, documentUrl: url, document: bundled }
    const allowed = !options.dids || options.dids.has(url.split('#', 1)[0]!)
    const own = url.startsWith('did:') ? (allowed ? await dids?.(url) : undefined) : await options.local?.(url)
    if (own !== undefined) return { contextUrl: null, documentUrl: url, document: own }
    throw new DocumentRefused(`the JSON-LD document ${url} is not one this service bundles or serves`)
  }
}

/**
 * DID URLs as Data Integrity asks for them (VC Data Integrity §4.4 "Retrieve Verification
 * Method"): `did:…#frag` answers the verification method, with the document's `@context`; a bare
 * DID its DID document, the controller document whose `assertionMethod` / `authentication` the
 * proof purpose checks. Ed25519 did:keys resolve in their Multikey form (Controlled Identifiers
 * §2.2.2), what the eddsa and bbs cryptosuites read. A method the document does not list is refused.
 */
export function didDocuments(resolver: Pick<DidResolver, 'resolve'>): LocalDocuments {
  return async (url) => {
    const hash = url.indexOf('#')
    const did = hash === -1 ? url : url.slice(0, hash)
    let doc: DidDocument
    try {
      // A method that computes its document (did:key) gives it in Multikey form; others ignore the option.
      doc = (await resolver.resolve(did, { publicKeyFormat: 'Multikey' })).didDocument
    } catch (error) {
      throw new DocumentRefused(
        `the DID ${did} does not resolve: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      )
    }
    if (hash === -1) return structuredClone(doc)
    const absolute = (id: string) => (id.startsWith('#') ? `${doc.id}${id}` : id)
    const embedded = [
      'authentication',
      'assertionMethod',
      'capabilityInvocation',
      'capabilityDelegation',
      'keyAgreement',
    ].flatMap((r) => (Array.isArray(doc[r]) ? (doc[r] as unknown[]) : []))
    const method = [...(doc.verificationMethod ?? []), ...embedded].find(
      (m): m is Record<string, unknown> =>
        typeof m === 'object' &&
        m !== null &&
        typeof (m as { id?: unknown }).id === 'string' &&
        absolute((m as { id: string }).id) === url,
    )
    if (!method) throw new DocumentRefused(`the DID document of ${did} lists no verification method ${url}`)
    return { '@context': doc['@context'], ...structuredClone(method), id: url }
  }
}
