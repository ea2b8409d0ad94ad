import { decodeCompactJws, signCompactJws } from '../../../../crypto/jws.js'
import type { CheckResult, CredentialProblem, IssuableFormat, ParsedItem, VerifyContext } from '../credential-format.js'
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
import { schemaIdOfJsonSchemaUrl } from '../schema-urls.js'
import { JWT_VC_JSON } from './jwt-vc-json-id.js'
import { jwtVcJsonDcql } from './jwt-vc-json.dcql.js'
import { jwtVcJsonHolder } from './jwt-vc-json.holder.js'
import { jwtVcJsonOid4vci } from './jwt-vc-json.oid4vci.js'
import { vc11Document, vc11JwtPayload } from './vc11-document.js'

/**
 * `jwt_vc_json` (OpenID4VCI Appendix A.1): a VC Data Model 1.1 credential in the `vc` claim of a
 * JWT (VCDM 1.1 §6.3.1), EdDSA. The format the service issued first; what verifiers built for
 * VCDM 1.1 JWTs (did-jwt-vc) read.
 */
export const jwtVcJson: IssuableFormat = {
  id: JWT_VC_JSON,
  keyType: 'Ed25519',
  oid4vci: jwtVcJsonOid4vci,
  holder: jwtVcJsonHolder,
  // VCDM 1.1 §6.3.1: the `vc` claim holds the credential (lists others, and this service once, publish so).
  statusList: { credentialOf: (payload) => (isObject(payload.vc) ? payload.vc : undefined) },

  recognizes(item) {
    if (typeof item !== 'string' || item.split('.').length !== 3) return false
    const header = jwsHeaderOf(item)
    // A JWT no typed JOSE format claims is read as VCDM 1.1: the registry asks those first (registered-formats.ts).
    return header === undefined || !String(header.typ ?? '').endsWith('sd-jwt')
  },

  parse: parsedJws,

  idOf(item, parsed = parsedJws(item)) {
    const jti = parsed.jws?.payload.jti
    return typeof jti === 'string' ? jti : undefined
  },

  async issue(content, signer) {
    const document = vc11Document(content, signer.did)
    const credential = await signCompactJws(
      { typ: 'JWT', kid: signer.kid },
      vc11JwtPayload(document, content, signer.did),
      signer.privateKey,
    )
    return { credential, document }
  },

  async verify(item, ctx, parsed) {
    return verifyJwtVc(String(item), ctx, parsed ?? parsedJws(item))
  },

  status(item, issuer, ctx) {
    const vc = decodeCompactJws(String(item))?.payload.vc
    return ctx.status.check(isObject(vc) ? vc.credentialStatus : undefined, issuer, ctx.statusMemo)
  },

  dcql: jwtVcJsonDcql,
}

async function verifyJwtVc(jwt: string, ctx: VerifyContext, parsed: ParsedItem): Promise<CheckResult> {
  const problems: CredentialProblem[] = []
  const decoded = parsed.jws
  if (decoded && !isObject(decoded.payload.vc))
    return { problems: [{ reason: 'malformed', message: 'the JWT has no vc claim' }] }
  const verified = await verifiedJwt(jwt, ctx, problems, decoded)
  if (!verified) return { problems }
  const payload = verified.payload
  const doc = payload.vc as Record<string, unknown>
  const signer = verified.did
  const issuer = typeof doc.issuer === 'string' ? doc.issuer : isObject(doc.issuer) ? doc.issuer.id : undefined
  if (payload.iss !== signer || (issuer !== undefined && issuer !== signer))
    problems.unshift({
      reason: 'issuer',
      message: `issuer ${String(issuer ?? payload.iss)} did not sign it (${verified.kid})`,
    })
  if (!isObject(doc.credentialSubject))
    return { problems: [...problems, { reason: 'malformed', message: 'it has no credentialSubject object' }] }
  const subject = doc.credentialSubject
  problems.push(...subjectProblems([payload.sub, subject.id], ctx.holderDid))
  // Where the JWT leaves out exp and nbf, the dates they stand for (VCDM 1.1 JWT encoding) are checked alike.
  const exp = typeof payload.exp === 'number' ? payload.exp : dateSeconds(doc.expirationDate)
  const nbf = typeof payload.nbf === 'number' ? payload.nbf : dateSeconds(doc.issuanceDate)
  problems.push(
    ...datedProblems(payload.exp === undefined ? exp : undefined, payload.nbf === undefined ? nbf : undefined, ctx),
  )
  if (typeof payload.iat === 'number' && payload.iat > Math.floor(ctx.now.getTime() / 1000) + ctx.skewSeconds)
    problems.push({ reason: 'not_yet_valid', message: 'it is issued in the future' })
  const status = statusProblems(await ctx.status.check(doc.credentialStatus, signer, ctx.statusMemo))
  problems.push(...status.problems)
  const iat = typeof payload.iat === 'number' ? payload.iat : nbf
  const id = typeof payload.jti === 'string' && payload.jti.length > 0 ? payload.jti : undefined
  return {
    problems,
    credential: readW3cCredential(doc, {
      signer,
      id,
      sub: payload.sub,
      issuedAt: iat,
      expiresAt: exp,
      schemaIds: schemaIdsOf(doc.credentialSchema),
      revoked: status.revoked,
    }),
  }
}

/**
 * VCDM `credentialSchema` (one or several): each entry's `id`, then this service's schema id: read
 * from its JSON Schema URL, or the `schemaId` beside the IPFS URL that credentials issued before
 * named (they still verify, and still meet a `schema_id` requirement).
 */
export function schemaIdsOf(credentialSchema: unknown): string[] {
  const entries = Array.isArray(credentialSchema) ? credentialSchema : [credentialSchema]
  return entries.flatMap((e) => {
    if (!isObject(e)) return []
    const schemaId =
      typeof e.schemaId === 'string' ? e.schemaId : typeof e.id === 'string' ? schemaIdOfJsonSchemaUrl(e.id) : undefined
    return [e.id, schemaId].filter((v): v is string => typeof v === 'string')
  })
}
