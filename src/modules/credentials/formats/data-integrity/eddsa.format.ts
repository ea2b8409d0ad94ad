import * as vc from '@digitalbazaar/vc'
import jsonld from 'jsonld'
import type { Clock } from '../../../../adapters/clock.js'
import { ValidationError } from '../../../../errors.js'
import type { JwsSigner } from '../../../identity/signing-identities.js'
import type {
  CheckResult,
  CredentialProblem,
  DocumentSecuringFormat,
  IssuedForm,
  VerifyContext,
} from '../credential-format.js'
import {
  dateSeconds,
  datedProblems,
  isObject,
  readW3cCredential,
  statusProblems,
  subjectProblems,
} from '../jwt-checks.js'
import { schemaIdsOf } from '../schema-urls.js'
import { vcdm2Credential } from '../shared/vcdm2-document.js'
import {
  DATA_INTEGRITY_MAX_VALUES,
  documentOf,
  hasProof,
  jsonLdProblem,
  proofDids,
  proofProblems,
  sizeProblem,
} from '../shared/data-integrity-checks.js'
import { createDocumentLoader, type DocumentLoader, type LocalDocuments } from '../shared/document-loader.js'
import { signingSuite, verifyingSuite, type EddsaCryptosuite } from './eddsa-suites.js'
import { eddsaOid4vci } from './eddsa.oid4vci.js'

export interface DataIntegrityDeps {
  /** Documents the service answers itself (its schemas' contexts), see document-loader.ts. */
  local?: LocalDocuments
  /** `created` of a proof on a caller-built document. */
  clock: Clock
}

/**
 * A VC Data Model 2.0 credential secured with a W3C Data Integrity proof of an EdDSA cryptosuite
 * (VC DI EdDSA v1.0: `eddsa-rdfc-2022` canonicalizes with RDFC-1.0, `eddsa-jcs-2022` with RFC
 * 8785). The credential is the JSON document itself; the stored form is its JSON text. Signing and
 * verifying go through @digitalbazaar/vc with the service's document loader (bundled contexts, its
 * own schema contexts, DIDs through its resolver), so nothing is fetched that the resolver would not.
 */
export function eddsaFormat(
  cryptosuite: EddsaCryptosuite,
  deps: DataIntegrityDeps,
  faces: Pick<DocumentSecuringFormat, 'oid4vci'> = {},
): DocumentSecuringFormat {
  const signingLoader = createDocumentLoader({ local: deps.local })
  return {
    id: cryptosuite,
    keyType: 'Ed25519',
    ...faces,
    // JSON-LD verifiers (vc-bitstring-status-list) read a JSON-LD status list credential.
    statusListForm: 'ld',

    recognizes: (item) => hasProof(documentOf(item), [cryptosuite]),

    idOf(item) {
      const id = documentOf(item)?.id
      return typeof id === 'string' ? id : undefined
    },

    async issue(content, signer) {
      return secured(cryptosuite, vcdm2Credential(content, signer.did), signer, content.issuedAt, signingLoader)
    },

    async secure(document, signer) {
      // @digitalbazaar/eddsa-jcs-2022-cryptosuite 1.0.0 compares the proof's @context entries with
      // the document's by identity, so a context object never matches and what it signs would not verify.
      if (
        cryptosuite === 'eddsa-jcs-2022' &&
        Array.isArray(document['@context']) &&
        document['@context'].some((c) => typeof c !== 'string')
      ) {
        throw new ValidationError(
          'eddsa-jcs-2022 secures credentials whose @context entries are all URLs: an embedded context object would not verify (use eddsa-rdfc-2022)',
          { details: { field: 'credential.@context' } },
        )
      }
      return secured(cryptosuite, document, signer, deps.clock.now(), signingLoader)
    },

    async verify(item, ctx) {
      const doc = documentOf(item)
      if (!doc) return { problems: [{ reason: 'unreadable', message: 'it is not a JSON credential document' }] }
      return verifyDataIntegrityCredential(
        doc,
        cryptosuite,
        ctx,
        createDocumentLoader({ local: deps.local, resolver: ctx.resolver, dids: proofDids(doc) }),
      )
    },

    status(item, issuer, ctx) {
      return ctx.status.check(documentOf(item)?.credentialStatus, issuer, ctx.statusMemo)
    },
  }
}

/** eddsa-rdfc-2022: the cryptosuite OpenID4VCI serves as `ldp_vc`, and JSON-LD status lists are secured with (Bitstring Status List §2.2). */
export const eddsaRdfc2022Format = (deps: DataIntegrityDeps): DocumentSecuringFormat =>
  eddsaFormat('eddsa-rdfc-2022', deps, { oid4vci: eddsaOid4vci('eddsa-rdfc-2022') })

/** eddsa-jcs-2022: the JCS cryptosuite, for documents whose contexts are all URLs. */
export const eddsaJcs2022Format = (deps: DataIntegrityDeps): DocumentSecuringFormat =>
  eddsaFormat('eddsa-jcs-2022', deps)

/**
 * Signs `document` as it is. What cannot be signed is the caller's to fix (400): not a VCDM
 * 1.1/2.0 credential (@digitalbazaar/vc's own checks), an issuer other than the signing DID, a
 * context the loader does not hold, a term no context defines (safe mode, VC Data Integrity §4.1).
 */
async function secured(
  cryptosuite: EddsaCryptosuite,
  document: Record<string, unknown>,
  signer: JwsSigner,
  created: Date,
  documentLoader: DocumentLoader,
): Promise<IssuedForm> {
  const invalid = (why: string, cause?: unknown) =>
    new ValidationError(`The credential cannot be secured with ${cryptosuite}: ${why}`, {
      cause,
      details: { field: 'credential' },
    })
  if (!isObject(document)) throw invalid('it is not a JSON object')
  const tooLarge = sizeProblem(document, DATA_INTEGRITY_MAX_VALUES)
  if (tooLarge) throw invalid(tooLarge)
  const credential = structuredClone(document)
  try {
    vc._checkCredential({ credential, mode: 'issue' })
  } catch (error) {
    throw invalid(`it is not a Verifiable Credentials Data Model document: ${(error as Error).message}`, error)
  }
  const issuer = isObject(credential.issuer) ? credential.issuer.id : credential.issuer
  if (issuer !== signer.did)
    throw invalid(`its issuer must be the signing DID ${signer.did}, not ${JSON.stringify(issuer)}`)
  try {
    // RFC 8785 signs without JSON-LD processing; the document must still be one (VCDM 2.0 §6.1), so the JCS suite checks it as RDFC would.
    if (cryptosuite === 'eddsa-jcs-2022')
      await jsonld.expand(
        credential as jsonld.JsonLdDocument,
        { documentLoader, safe: true } as unknown as jsonld.Options.Expand,
      )
    const signed = await vc.issue({ credential, suite: signingSuite(cryptosuite, signer, created), documentLoader })
    return { credential: JSON.stringify(signed), document: signed }
  } catch (error) {
    const problem = jsonLdProblem(error)
    if (problem) throw invalid(problem, error)
    throw error
  }
}

/**
 * Every check of a Data Integrity credential, each failure one problem: the proof of `cryptosuite`
 * by a method its issuer's DID document lists under `assertionMethod` (@digitalbazaar/vc), the
 * validity period against ctx.now with the skew, the subject bound to the holder, the status entry.
 */
export async function verifyDataIntegrityCredential(
  doc: Record<string, unknown>,
  cryptosuite: EddsaCryptosuite,
  ctx: VerifyContext,
  documentLoader: DocumentLoader,
): Promise<CheckResult> {
  const tooLarge = sizeProblem(doc, DATA_INTEGRITY_MAX_VALUES)
  if (tooLarge) return { problems: [{ reason: 'malformed', message: tooLarge }] }
  try {
    vc._checkCredential({ credential: doc, mode: 'issue' })
  } catch (error) {
    return {
      problems: [
        {
          reason: 'malformed',
          message: `it is not a Verifiable Credentials Data Model document: ${(error as Error).message}`,
        },
      ],
    }
  }
  // VCDM 2.0 §4.9 (validFrom/validUntil) or 1.1 §4.6-4.7 (issuanceDate/expirationDate); a proof's own `expires` (VC DI §2.1) too.
  const expiresAt = dateSeconds(doc.validUntil ?? doc.expirationDate)
  const validFrom = dateSeconds(doc.validFrom ?? doc.issuanceDate)
  const problems: CredentialProblem[] = datedProblems(expiresAt, validFrom, ctx)

  // The library stops at its first date check before looking at the proof: it is asked about the
  // proof at a moment inside the validity period (a bound itself, with a second of slack: it
  // compares strictly), the dates being reported above with ctx.now.
  const nowMs = ctx.now.getTime()
  const at = new Date(
    Math.min(Math.max(nowMs, (validFrom ?? -Infinity) * 1000), expiresAt === undefined ? Infinity : expiresAt * 1000),
  )
  const result = await vc.verifyCredential({
    credential: doc,
    suite: verifyingSuite(cryptosuite),
    documentLoader,
    now: at,
    maxClockSkew: Math.max(ctx.skewSeconds, 1),
    // Status is read below by the service's StatusChecker (revoked is a problem, not a failed proof).
    checkStatus: async () => ({ verified: true }),
  })
  if (!result.verified) return { problems: [...proofProblems(result, 'issuer proof'), ...problems] }
  // A proof's own `expires` (VC DI §2.1), read only from proofs that verified: a proof set verifies
  // when one of its proofs does, so an unverified sibling must not vouch for anything.
  const proofExpiry = (result.results ?? [])
    .filter((r) => r.verified)
    .map((r) => dateSeconds(r.proof?.expires))
    .find((e) => e !== undefined)
  if (proofExpiry !== undefined && !problems.some((p) => p.reason === 'expired'))
    problems.push(...datedProblems(proofExpiry, undefined, ctx))

  if (!isObject(doc.credentialSubject))
    return { problems: [...problems, { reason: 'malformed', message: 'it has no single credentialSubject object' }] }
  const issuer = String(isObject(doc.issuer) ? doc.issuer.id : doc.issuer)
  problems.push(...subjectProblems([doc.credentialSubject.id], ctx.holderDid))
  const status = statusProblems(await ctx.status.check(doc.credentialStatus, issuer, ctx.statusMemo))
  problems.push(...status.problems)
  return {
    problems,
    credential: readW3cCredential(doc, {
      signer: issuer,
      id: typeof doc.id === 'string' ? doc.id : undefined,
      sub: undefined,
      issuedAt: validFrom,
      expiresAt,
      schemaIds: schemaIdsOf(doc.credentialSchema),
      revoked: status.revoked,
    }),
  }
}
