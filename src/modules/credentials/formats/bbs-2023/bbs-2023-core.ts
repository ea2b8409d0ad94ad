/**
 * The bbs-2023 cryptosuite (W3C VC Data Integrity BBS Cryptosuites v1.0) through its reference
 * libraries: @digitalbazaar/vc with DataIntegrityProof and @digitalbazaar/bbs-2023-cryptosuite,
 * keys by @digitalbazaar/bls12-381-multikey (IETF BBS, ciphersuite BLS12-381-SHA-256). No I/O:
 * every JSON-LD document an operation needs is either bundled (STATIC_CONTEXTS) or passed in
 * `documents`, so the same calls run on the event loop or in a worker thread (bbs-2023-worker.ts).
 */
import {
  createDiscloseCryptosuite,
  createSignCryptosuite,
  createVerifyCryptosuite,
} from '@digitalbazaar/bbs-2023-cryptosuite'
import { ALGORITHMS, fromRaw } from '@digitalbazaar/bls12-381-multikey'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import * as vc from '@digitalbazaar/vc'
import { STATIC_CONTEXTS, type RemoteDocument } from '../shared/document-loader.js'

/** JSON-LD documents beyond the bundled contexts (a schema's context, a verification method, its controller), by URL. */
export type Documents = Record<string, unknown>

export interface SignBaseRequest {
  document: Record<string, unknown>
  /** RFC 6901 pointers always disclosed (bbs-2023 §3.4.2 `mandatoryPointers`). */
  mandatoryPointers: string[]
  verificationMethod: string
  publicKey: Uint8Array
  secretKey: Uint8Array
  documents: Documents
}

export interface DeriveRequest {
  credential: Record<string, unknown>
  selectivePointers: string[]
  presentationHeader?: Uint8Array
  documents: Documents
}

export interface VerifyRequest {
  credential: Record<string, unknown>
  documents: Documents
}

export interface VerifyOutcome {
  verified: boolean
  /** Why not, in the library's words. */
  error?: string
}

/** A document loader that answers bundled contexts and `documents` only (never the network). */
export function staticLoader(documents: Documents): (url: string) => Promise<RemoteDocument> {
  return async (url) => {
    const document = STATIC_CONTEXTS.get(url) ?? (Object.hasOwn(documents, url) ? documents[url] : undefined)
    if (document === undefined) throw new RangeError(`the JSON-LD document ${url} is neither bundled nor given`)
    return { contextUrl: null, documentUrl: url, document }
  }
}

/** The base proof (bbs-2023 §3.4.1–3.4.5): what the issuer signs and the holder keeps. */
export async function signBase(req: SignBaseRequest): Promise<Record<string, unknown>> {
  const key = await fromRaw({
    algorithm: ALGORITHMS.BBS_BLS12381_SHA256,
    publicKey: req.publicKey,
    secretKey: req.secretKey,
  })
  const signer = Object.assign(key.signer(), { id: req.verificationMethod })
  const suite = new DataIntegrityProof({
    signer,
    cryptosuite: createSignCryptosuite({ mandatoryPointers: req.mandatoryPointers }),
  })
  // vc.issue adds the proof to the object it is given.
  return vc.issue({ credential: structuredClone(req.document), suite, documentLoader: staticLoader(req.documents) })
}

/** A derived (disclosure) proof (bbs-2023 §3.4.6–3.4.7) revealing the mandatory and the selected statements. */
export async function deriveDisclosure(req: DeriveRequest): Promise<Record<string, unknown>> {
  const cryptosuite = createDiscloseCryptosuite({
    selectivePointers: req.selectivePointers,
    ...(req.presentationHeader ? { presentationHeader: req.presentationHeader } : {}),
  })
  return vc.derive({
    verifiableCredential: structuredClone(req.credential),
    suite: new DataIntegrityProof({ cryptosuite }),
    documentLoader: staticLoader(req.documents),
  })
}

/**
 * The derived proof's signature and proof purpose (assertionMethod of its controller), nothing
 * else: dates and status are the caller's, by its own clock and status reader. `now` is set to
 * the credential's own `validFrom` so the library's date check, which would stop before the
 * proof is checked, never hides a bad signature behind an expiry.
 */
export async function verifyDerived(req: VerifyRequest): Promise<VerifyOutcome> {
  const validFrom = typeof req.credential.validFrom === 'string' ? new Date(req.credential.validFrom) : undefined
  const result = await vc.verifyCredential({
    credential: req.credential,
    suite: new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() }),
    documentLoader: staticLoader(req.documents),
    checkStatus: async () => ({ verified: true }),
    ...(validFrom && !Number.isNaN(validFrom.getTime()) ? { now: validFrom } : {}),
  })
  if (result.verified) return { verified: true }
  const errors =
    result.error?.errors ?? result.results?.map((r) => r.error).filter((e): e is Error => e !== undefined) ?? []
  const message = (errors.length ? errors : [result.error]).map((e) => e?.message ?? 'invalid proof').join('; ')
  return { verified: false, error: message }
}
