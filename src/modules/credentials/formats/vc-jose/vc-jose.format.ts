import { decodeCompactJws, signCompactJws } from '../../../../crypto/jws.js'
import { ValidationError } from '../../../../errors.js'
import type {
  CheckResult,
  CredentialProblem,
  DocumentSecuringFormat,
  ParsedItem,
  VerifyContext,
} from '../credential-format.js'
import {
  dateSeconds,
  datedProblems,
  isObject,
  jwsHeaderOf,
  parsedJws,
  readW3cCredential,
  statusProblems,
  subjectProblems,
  verifiedJwt,
} from '../jwt-checks.js'
import { schemaIdsOf } from '../schema-urls.js'
import { VC_V2 } from '../../../../shared/vc-contexts.js'
import { vcdm2Payload } from '../shared/vcdm2-document.js'

export const VC_JWT_TYP = 'vc+jwt'

/**
 * `vc+jwt`: a W3C VC Data Model 2.0 credential secured with VC-JOSE-COSE (§3.1.1): the JWT
 * payload is the credential, the protected header says `typ: vc+jwt` and `kid` names the
 * issuer's assertion key. EdDSA, like `jwt_vc_json`; what VCDM 2.0 verifiers read.
 */
export const vcJose: DocumentSecuringFormat = {
  id: VC_JWT_TYP,
  keyType: 'Ed25519',
  // VC-JOSE-COSE §3.1.1: the payload is the credential (what this service publishes its lists as).
  statusList: { credentialOf: (payload) => payload },

  recognizes(item) {
    return typeof item === 'string' && item.split('.').length === 3 && jwsHeaderOf(item)?.typ === VC_JWT_TYP
  },

  parse: parsedJws,

  idOf(item, parsed = parsedJws(item)) {
    const payload = parsed.jws?.payload
    const id = payload?.id ?? payload?.jti
    return typeof id === 'string' ? id : undefined
  },

  async issue(content, signer) {
    const payload = vcdm2Payload(content, signer.did)
    const credential = await signCompactJws({ typ: VC_JWT_TYP, kid: signer.kid }, payload, signer.privateKey)
    return { credential, document: payload }
  },

  // VC-JOSE-COSE §3.1.1: a caller-built VCDM 2.0 credential is the payload as it is.
  async secure(document, signer) {
    const context = document['@context']
    if (!Array.isArray(context) || context[0] !== VC_V2)
      throw new ValidationError(`a vc+jwt secures VCDM 2.0 credentials: @context must begin with ${VC_V2}`, {
        details: { field: 'credential.@context' },
      })
    const credential = await signCompactJws({ typ: VC_JWT_TYP, kid: signer.kid }, document, signer.privateKey)
    return { credential, document }
  },

  async verify(item, ctx, parsed) {
    return verifyVcJwt(String(item), ctx, parsed ?? parsedJws(item))
  },

  status(item, issuer, ctx) {
    return ctx.status.check(decodeCompactJws(String(item))?.payload.credentialStatus, issuer, ctx.statusMemo)
  },
}

async function verifyVcJwt(jwt: string, ctx: VerifyContext, parsed: ParsedItem): Promise<CheckResult> {
  const problems: CredentialProblem[] = []
  const decoded = parsed.jws
  if (decoded) {
    if (decoded.header.typ !== VC_JWT_TYP)
      return {
        problems: [
          { reason: 'malformed', message: `its typ is ${JSON.stringify(decoded.header.typ)}, not "${VC_JWT_TYP}"` },
        ],
      }
    const context = decoded.payload['@context']
    if (!Array.isArray(context) || context[0] !== VC_V2)
      return {
        problems: [{ reason: 'malformed', message: `its @context does not begin with ${VC_V2} (VCDM 2.0 §4.3)` }],
      }
  }
  const verified = await verifiedJwt(jwt, ctx, problems, decoded)
  if (!verified) return { problems }
  const doc = verified.payload
  const signer = verified.did
  const issuer = typeof doc.issuer === 'string' ? doc.issuer : isObject(doc.issuer) ? doc.issuer.id : undefined
  // VC-JOSE-COSE §3.1.1: `iss`, when present, is the issuer; both must be the DID whose key signed.
  if (issuer !== signer || (doc.iss !== undefined && doc.iss !== signer))
    problems.unshift({
      reason: 'issuer',
      message: `issuer ${String(issuer ?? doc.iss)} did not sign it (${verified.kid})`,
    })
  if (!isObject(doc.credentialSubject))
    return { problems: [...problems, { reason: 'malformed', message: 'it has no credentialSubject object' }] }
  const subject = doc.credentialSubject
  problems.push(...subjectProblems([doc.sub, subject.id], ctx.holderDid))
  // validFrom/validUntil are the credential's own period (VCDM 2.0 §4.9); jose already told exp/nbf.
  const validUntil = dateSeconds(doc.validUntil)
  const validFrom = dateSeconds(doc.validFrom)
  for (const problem of datedProblems(validUntil, validFrom, ctx))
    if (!problems.some((p) => p.reason === problem.reason)) problems.push(problem)
  if (typeof doc.iat === 'number' && doc.iat > Math.floor(ctx.now.getTime() / 1000) + ctx.skewSeconds)
    problems.push({ reason: 'not_yet_valid', message: 'it is issued in the future' })
  const status = statusProblems(await ctx.status.check(doc.credentialStatus, signer, ctx.statusMemo))
  problems.push(...status.problems)
  const id = typeof doc.id === 'string' ? doc.id : typeof doc.jti === 'string' ? doc.jti : undefined
  const exp = validUntil ?? (typeof doc.exp === 'number' ? doc.exp : undefined)
  const iat = validFrom ?? (typeof doc.iat === 'number' ? doc.iat : undefined)
  return {
    problems,
    credential: readW3cCredential(doc, {
      signer,
      id,
      sub: doc.sub,
      issuedAt: iat,
      expiresAt: exp,
      schemaIds: schemaIdsOf(doc.credentialSchema),
      revoked: status.revoked,
    }),
  }
}
