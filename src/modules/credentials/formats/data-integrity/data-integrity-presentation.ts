import * as vc from '@digitalbazaar/vc'
import jsigs from 'jsonld-signatures'
import type { CheckResult, CredentialProblem, VerifyContext } from '../credential-format.js'
import { presentedItem, verifyItem, type ItemFormats, type PresentedItem } from '../presentation-kind.js'
import { dateSeconds, datedProblems, isObject } from '../jwt-checks.js'
import {
  DATA_INTEGRITY_MAX_VALUES,
  documentOf,
  hasProof,
  proofDids,
  proofProblems,
  proofsOf,
  sizeProblem,
} from '../shared/data-integrity-checks.js'
import { createDocumentLoader, type LocalDocuments } from '../shared/document-loader.js'
import { allVerifyingSuites, EDDSA_CRYPTOSUITES } from './eddsa-suites.js'

export interface DataIntegrityPresentationOptions extends Omit<VerifyContext, 'holderDid' | 'presentation'> {
  /** What the proof's `challenge` must be: the request's nonce (VC Data Integrity §2.1). */
  challenge: string
  /** What the proof's `domain` must be or include: the verifier's DID; unchecked when undefined (the VC API's optional domain). */
  domain: string | undefined
  /** The holder it must be presented by, when known beforehand. */
  holderDid?: string
  /** Whether it must hold a credential (the spec's requests: yes; VCDM 2.0 §4.13 allows none). */
  requireCredentials?: boolean
  /** Whether each credential must be issued to the holder (the spec's requests: yes; the VC API's verify: VCDM does not require it). */
  bindCredentialsToHolder?: boolean
  /** Each embedded credential is verified by the format that recognizes it. */
  formats: ItemFormats
  /** Its credentials as already read (the presentation kind's `open`); read here when absent. */
  items?: readonly PresentedItem[]
  /** The service's own JSON-LD documents (document-loader.ts). */
  local?: LocalDocuments
}

export interface DataIntegrityPresentationResult {
  /** The DID whose `authentication` method made the proof; undefined when the proof does not verify. */
  holder?: string
  /** The presentation's own problems (`binding`: challenge, domain, holder; `signature`; `malformed`). */
  problems: CredentialProblem[]
  /** One result per `verifiableCredential` item, in order. */
  credentials: CheckResult[]
}

/** Whether a presentation (object or JSON text) carries an EdDSA Data Integrity proof. */
export function isDataIntegrityPresentation(item: unknown): boolean {
  const doc = documentOf(item)
  return doc !== undefined && hasProof(doc, EDDSA_CRYPTOSUITES)
}

/** The proof's fields a holder sets, read without verifying (to route and to file a submission). */
export function dataIntegrityEnvelope(
  item: unknown,
): { holder?: string; signer?: string; challenge?: unknown; domains: unknown[]; items: unknown[] } | undefined {
  const vp = documentOf(item)
  const proof = proofsOf(vp)[0]
  if (!vp || !proof) return undefined
  const method =
    typeof proof.verificationMethod === 'string'
      ? proof.verificationMethod
      : isObject(proof.verificationMethod)
        ? proof.verificationMethod.id
        : undefined
  const holder = isObject(vp.holder) ? vp.holder.id : vp.holder
  return {
    holder: typeof holder === 'string' ? holder : undefined,
    signer: typeof method === 'string' ? method.split('#')[0] : undefined,
    challenge: proof.challenge,
    domains: Array.isArray(proof.domain) ? proof.domain : [proof.domain],
    items:
      vp.verifiableCredential === undefined
        ? []
        : Array.isArray(vp.verifiableCredential)
          ? vp.verifiableCredential
          : [vp.verifiableCredential],
  }
}

/**
 * The presentation's own proof, nothing it holds: for `authentication`, with `challenge` and
 * `domain`, by its `holder` (and by `holderDid` when given). `holder` is the DID whose method
 * signed, when the proof verifies.
 */
export async function checkPresentationProof(
  vp: Record<string, unknown>,
  options: Pick<
    DataIntegrityPresentationOptions,
    'challenge' | 'domain' | 'holderDid' | 'resolver' | 'local' | 'now' | 'skewSeconds'
  >,
): Promise<{ holder?: string; problems: CredentialProblem[] }> {
  const problems: CredentialProblem[] = []
  // One proof: a proof set verifies when any of its proofs does (jsonld-signatures), so the
  // challenge, domain, created and expires read from it could belong to a proof that did not.
  if (Array.isArray(vp.proof) && vp.proof.length !== 1)
    return {
      problems: [{ reason: 'malformed', message: 'the presentation must carry exactly one proof, not a proof set' }],
    }
  const tooLarge = sizeProblem(vp, DATA_INTEGRITY_MAX_VALUES)
  if (tooLarge) return { problems: [{ reason: 'malformed', message: `the presentation: ${tooLarge}` }] }
  const documentLoader = createDocumentLoader({ local: options.local, resolver: options.resolver, dids: proofDids(vp) })
  const purpose = new jsigs.purposes.AuthenticationProofPurpose({
    challenge: options.challenge,
    domain: options.domain,
  })
  const result = await jsigs.verify(vp, { suite: allVerifyingSuites(), purpose, documentLoader })
  const envelope = dataIntegrityEnvelope(vp)!
  let holder: string | undefined
  if (result.verified) {
    const verified = result.results?.find((r) => r.verified)
    holder = verified?.purposeResult?.controller?.id ?? envelope.signer
    if (envelope.holder !== undefined && envelope.holder !== holder)
      problems.push({
        reason: 'binding',
        message: `the presentation's holder ${envelope.holder} did not sign it (${holder})`,
      })
    if (options.holderDid !== undefined && holder !== options.holderDid)
      problems.push({
        reason: 'binding',
        message: `the presentation is signed by ${holder}, not by the holder ${options.holderDid}`,
      })
  } else {
    problems.push(
      ...proofProblems(result, 'presentation proof', 'binding').map((p) =>
        /challenge|domain/.test(p.message) ? { ...p, reason: 'binding' as const } : p,
      ),
    )
  }
  // A proof may bound its own lifetime (VC Data Integrity §2.1 `expires`).
  const expires = proofsOf(vp)
    .map((p) => dateSeconds(p.expires))
    .find((e) => e !== undefined)
  problems.push(
    ...datedProblems(expires, undefined, options).map((p) => ({
      ...p,
      message: `the presentation proof ${p.message.replace(/^it /, '')}`,
    })),
  )
  return { ...(holder === undefined ? {} : { holder }), problems }
}

/**
 * A VC Data Model 2.0 presentation secured with Data Integrity (eddsa-rdfc-2022 or eddsa-jcs-2022):
 * its proof for `authentication` with the expected `challenge` and `domain` (jsonld-signatures'
 * AuthenticationProofPurpose, the method resolved through the DID resolver: did:key, did:jwk,
 * did:web), made by its `holder`; then each embedded credential by the format registry, bound to
 * that holder and to this challenge and domain.
 */
export async function verifyDataIntegrityPresentation(
  item: unknown,
  options: DataIntegrityPresentationOptions,
): Promise<DataIntegrityPresentationResult> {
  const vp = documentOf(item)
  if (!vp)
    return { problems: [{ reason: 'unreadable', message: 'the presentation is not a JSON document' }], credentials: [] }
  try {
    vc._checkPresentation(vp)
  } catch (error) {
    return {
      problems: [
        {
          reason: 'malformed',
          message: `the presentation is not a Verifiable Credentials Data Model presentation: ${(error as Error).message}`,
        },
      ],
      credentials: [],
    }
  }
  // An unsigned presentation has no envelope to read (the VC API hands any JSON object here).
  const envelope = dataIntegrityEnvelope(vp)
  if (!envelope)
    return {
      problems: [{ reason: 'binding', message: 'the presentation has no Data Integrity proof' }],
      credentials: [],
    }
  const { holder, problems } = await checkPresentationProof(vp, options)
  if (envelope.items.length === 0 && options.requireCredentials !== false)
    problems.push({ reason: 'malformed', message: 'the presentation holds no credential' })

  const holderDid = holder ?? options.holderDid ?? envelope.holder
  const credentials: CheckResult[] = []
  for (const credential of options.items ?? envelope.items.map((item) => presentedItem(item, options.formats))) {
    credentials.push(
      await verifyItem(credential, {
        resolver: options.resolver,
        status: options.status,
        statusMemo: options.statusMemo,
        now: options.now,
        skewSeconds: options.skewSeconds,
        holderDid: options.bindCredentialsToHolder === false ? undefined : holderDid,
        ...(options.domain === undefined
          ? {}
          : { presentation: { nonce: options.challenge, audience: options.domain } }),
      }),
    )
  }
  return { ...(holder === undefined ? {} : { holder }), problems, credentials }
}
