import { ValidationError } from '../../../../errors.js'
import type { Bbs2023Signer } from '../../../identity/signing-identities.js'
import { IETF_BBS } from '../../../identity/signing-identities.js'
import type {
  CheckResult,
  CredentialContent,
  CredentialProblem,
  DocumentSecuringFormat,
  IssuedForm,
  VerifyContext,
} from '../credential-format.js'
import { BBS_2023_MAX_VALUES, documentOf, sizeProblem } from '../shared/data-integrity-checks.js'
import type { LocalDocuments } from '../shared/document-loader.js'
import {
  dateSeconds,
  datedProblems,
  isObject,
  readW3cCredential,
  statusProblems,
  subjectProblems,
} from '../jwt-checks.js'
import { schemaIdsOf } from '../schema-urls.js'
import { vcdm2Payload } from '../shared/vcdm2-document.js'
import type { Bbs2023Engine } from './bbs-2023-engine.js'
import { contextDocuments, MissingDocumentError, verificationMethodDocuments } from './bbs-2023-documents.js'
import { checkNotInsideLiterals, checkPointers, jsonLiteralTerms, PointerError } from './json-pointers.js'
import { BBS_2023, bbs2023Proof, proofMode } from './proof-value.js'
import { VC_V1, VC_V2 } from '../../../../shared/vc-contexts.js'

/** The JWT claims vcdm2Payload mirrors for vc+jwt: a Data Integrity credential carries none of them. */
const JWT_CLAIMS = ['iss', 'sub', 'jti', 'iat', 'nbf', 'exp']

/**
 * What a verifier always sees of a credential issued here (docs/formats.md "bbs-2023"): who issued
 * it, what it is, its validity period (hiding an expiry would defeat it), its schema and its status
 * entry (revocation must stay checkable). Everything under `credentialSubject`, and evidence, is
 * the holder's to disclose.
 */
export const ISSUED_MANDATORY_POINTERS = [
  '/issuer',
  '/id',
  '/type',
  '/validFrom',
  '/validUntil',
  '/credentialSchema',
  '/credentialStatus',
]

export interface Bbs2023Format extends DocumentSecuringFormat<typeof IETF_BBS> {
  /** The holder's derived proof of a base-proof credential, disclosing the mandatory statements and `selectivePointers`. */
  derive(credential: string, selectivePointers: string[]): Promise<Record<string, unknown>>
}

/**
 * `bbs-2023`: a VCDM 2.0 credential secured with the W3C Data Integrity BBS cryptosuite (IETF BBS,
 * BLS12-381-SHA-256). The issuer's base proof goes to the holder, who derives from it an
 * unlinkable proof disclosing chosen JSON Pointers; verifiers are shown derived proofs only.
 * `local` answers the contexts this service serves; `engine` does the canonicalization and BBS.
 */
export function bbs2023Format(deps: { engine: Bbs2023Engine; local?: LocalDocuments }): Bbs2023Format {
  const { engine, local } = deps

  async function signBase(
    document: Record<string, unknown>,
    signer: Bbs2023Signer,
    mandatoryPointers: string[],
  ): Promise<IssuedForm> {
    const tooLarge = sizeProblem(document, BBS_2023_MAX_VALUES)
    if (tooLarge)
      throw new ValidationError(`The credential cannot be secured with bbs-2023: ${tooLarge}`, {
        details: { field: 'credential' },
      })
    let documents
    try {
      checkPointers(document, mandatoryPointers)
      documents = await contextDocuments(document, local)
    } catch (error) {
      if (error instanceof PointerError)
        throw new ValidationError(`mandatoryPointers: ${error.message}`, {
          details: { field: 'mandatoryPointers', pointer: error.pointer },
        })
      if (error instanceof MissingDocumentError)
        throw new ValidationError(`The credential cannot be secured: ${error.message}`, {
          details: { field: '@context' },
        })
      throw error
    }
    let signed
    try {
      signed = await engine.signBase({
        document,
        mandatoryPointers,
        verificationMethod: signer.verificationMethod,
        publicKey: signer.publicKey,
        secretKey: signer.secretKey,
        documents,
      })
    } catch (error) {
      // JSON-LD refusals (an undefined term in safe mode, a malformed value) are the document's, as is
      // a graph past rdf-canonize's bound on blank-node hashing (RDFC-1.0 §4.8).
      if (
        error instanceof Error &&
        (error.name.startsWith('jsonld.') ||
          error.name === 'TypeError' ||
          error.name === 'RangeError' ||
          /^Maximum deep iterations exceeded/.test(error.message))
      ) {
        throw new ValidationError(`The credential cannot be secured with bbs-2023: ${error.message}`, { cause: error })
      }
      throw error
    }
    return { credential: JSON.stringify(signed), document: signed }
  }

  return {
    id: BBS_2023,
    keyType: IETF_BBS,
    // JSON-LD verifiers (vc-bitstring-status-list) read a JSON-LD status list credential.
    statusListForm: 'ld',

    recognizes(item) {
      const doc = documentOf(item)
      return doc !== undefined && bbs2023Proof(doc) !== undefined
    },

    idOf(item) {
      const id = documentOf(item)?.id
      return typeof id === 'string' ? id : undefined
    },

    async issue(content, signer) {
      const document = issuedDocument(content, signer.did)
      return signBase(
        document,
        signer,
        ISSUED_MANDATORY_POINTERS.filter((p) => Object.hasOwn(document, p.slice(1))),
      )
    },

    async secure(document, signer, options) {
      const context = document['@context']
      // VC DI BBS §3 secures VCDM 2.0 and 1.1 credentials alike.
      if (!Array.isArray(context) || (context[0] !== VC_V2 && context[0] !== VC_V1))
        throw new ValidationError(`The credential's @context must begin with ${VC_V2} (VCDM 2.0 §4.3) or ${VC_V1}`, {
          details: { field: '@context' },
        })
      if ('proof' in document)
        throw new ValidationError('The credential to secure must not carry a proof already', {
          details: { field: 'proof' },
        })
      const issuer = isObject(document.issuer) ? document.issuer.id : document.issuer
      if (issuer !== signer.did)
        throw new ValidationError(
          `The credential's issuer must be ${signer.did}, the DID whose IETF BBS key signs it`,
          { details: { field: 'issuer' } },
        )
      const pointers = options.mandatoryPointers ?? []
      if (!Array.isArray(pointers) || pointers.some((p) => typeof p !== 'string'))
        throw new ValidationError('mandatoryPointers must be an array of JSON Pointers (strings)', {
          details: { field: 'mandatoryPointers' },
        })
      return signBase(document, signer, [...new Set(['/issuer', ...pointers])])
    },

    async derive(credential, selectivePointers) {
      const doc = documentOf(credential)
      const proof = doc && bbs2023Proof(doc)
      if (!doc || !proof || proofMode(proof) !== 'base')
        throw new ValidationError('This is not a bbs-2023 credential with a base proof: nothing to derive from')
      const tooLarge = sizeProblem(doc, BBS_2023_MAX_VALUES)
      if (tooLarge) throw new ValidationError(`The credential cannot be derived from: ${tooLarge}`)
      const { proof: _proof, ...unsigned } = doc
      // VCDM 2.0 §4.8: a credential has a credentialSubject, so a derived one must disclose some of it.
      if (
        !selectivePointers.some((p) => p === '' || p === '/credentialSubject' || p.startsWith('/credentialSubject/'))
      ) {
        throw new ValidationError(
          'Select at least one claim under /credentialSubject: a credential without a subject is not a verifiable credential (VCDM 2.0 §4.8)',
          { details: { field: 'pointers' } },
        )
      }
      let documents
      try {
        checkPointers(unsigned, selectivePointers)
        documents = await contextDocuments(unsigned, local)
        checkNotInsideLiterals(selectivePointers, jsonLiteralTerms(Object.values(documents)))
      } catch (error) {
        if (error instanceof PointerError)
          throw new ValidationError(error.message, { details: { field: 'pointers', pointer: error.pointer } })
        if (error instanceof MissingDocumentError)
          throw new ValidationError(`The credential cannot be derived from: ${error.message}`)
        throw error
      }
      return engine.derive({ credential: doc, selectivePointers, documents })
    },

    async verify(item, ctx) {
      return verifyBbs2023(item, ctx, engine, local)
    },

    async status(item, issuer, ctx) {
      return ctx.status.check(documentOf(item)?.credentialStatus, issuer, ctx.statusMemo)
    },
  }
}

/** The VCDM 2.0 document of vc+jwt (vcdm2-document.ts) without its JWT claims. */
export function issuedDocument(content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const document = vcdm2Payload(content, issuerDid)
  for (const claim of JWT_CLAIMS) delete document[claim]
  return document
}

async function verifyBbs2023(
  item: unknown,
  ctx: VerifyContext,
  engine: Bbs2023Engine,
  local: LocalDocuments | undefined,
): Promise<CheckResult> {
  const doc = documentOf(item)
  if (!doc) return { problems: [{ reason: 'unreadable', message: 'it is not a JSON credential' }] }
  const tooLarge = sizeProblem(doc, BBS_2023_MAX_VALUES)
  if (tooLarge) return { problems: [{ reason: 'malformed', message: tooLarge }] }
  const context = doc['@context']
  if (!Array.isArray(context) || (context[0] !== VC_V2 && context[0] !== VC_V1))
    return {
      problems: [
        { reason: 'malformed', message: `its @context does not begin with ${VC_V2} (VCDM 2.0 §4.3) or ${VC_V1}` },
      ],
    }
  const proof = bbs2023Proof(doc)
  if (!proof) return { problems: [{ reason: 'malformed', message: 'it carries no bbs-2023 DataIntegrityProof' }] }
  const mode = proofMode(proof)
  if (mode === 'base') {
    return {
      problems: [
        {
          reason: 'malformed',
          message:
            "it carries the issuer's bbs-2023 base proof, which its holder keeps: a verifier is shown a proof derived from it (POST /api/wallet/:did/credentials/:credential_id/derive)",
        },
      ],
    }
  }
  if (mode !== 'derived')
    return {
      problems: [
        {
          reason: 'malformed',
          message: 'its bbs-2023 proofValue is neither a base nor a derived proof (bbs-2023 §3.3)',
        },
      ],
    }
  if (!isObject(doc.credentialSubject))
    return { problems: [{ reason: 'malformed', message: 'it has no credentialSubject object' }] }
  const methodId = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : undefined
  if (!methodId?.includes('#'))
    return { problems: [{ reason: 'malformed', message: 'its proof names no verification method (a DID URL)' }] }

  const problems: CredentialProblem[] = []
  let key
  try {
    key = await verificationMethodDocuments(ctx.resolver, methodId)
  } catch (error) {
    return {
      problems: [{ reason: 'issuer', message: `its issuer's DID could not be resolved: ${(error as Error).message}` }],
    }
  }
  if (!key)
    return { problems: [{ reason: 'issuer', message: `${methodId} is not a Multikey assertion method of its DID` }] }
  const issuer = isObject(doc.issuer) ? doc.issuer.id : doc.issuer
  if (issuer !== key.did)
    problems.push({ reason: 'issuer', message: `issuer ${String(issuer)} did not sign it (${methodId})` })

  let documents
  try {
    documents = { ...(await contextDocuments(doc, local)), ...key.documents }
  } catch (error) {
    if (error instanceof MissingDocumentError)
      return { problems: [...problems, { reason: 'malformed', message: error.message }] }
    throw error
  }
  const outcome = await engine.verify({ credential: doc, documents })
  if (!outcome.verified)
    return {
      problems: [
        ...problems,
        { reason: 'signature', message: `its bbs-2023 proof does not verify: ${outcome.error ?? 'invalid proof'}` },
      ],
    }

  problems.push(...subjectProblems([doc.credentialSubject.id], ctx.holderDid))
  const validUntil = dateSeconds(doc.validUntil)
  const validFrom = dateSeconds(doc.validFrom)
  problems.push(...datedProblems(validUntil, validFrom, ctx))
  const status = statusProblems(await ctx.status.check(doc.credentialStatus, key.did, ctx.statusMemo))
  problems.push(...status.problems)
  const id = typeof doc.id === 'string' ? doc.id : undefined
  return {
    problems,
    credential: readW3cCredential(doc, {
      signer: key.did,
      id,
      sub: undefined,
      issuedAt: validFrom,
      expiresAt: validUntil,
      schemaIds: schemaIdsOf(doc.credentialSchema),
      revoked: status.revoked,
    }),
  }
}
