import { SDJwtVcInstance, type VerificationResult } from '@sd-jwt/sd-jwt-vc'
import { calculateJwkThumbprint, type JWK } from 'jose'
import type { HttpGet } from '../../../../adapters/http-out/guarded-fetch.js'
import { decodeCompactJws } from '../../../../crypto/jws.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import { IssuerKeyUnavailable, jwkKey, relationshipJwks, resolveIssuerKey } from '../../../did/jwt-vc-issuer.js'
import type { StatusState } from '../../../status-list/status-check.js'
import type {
  CheckResult,
  CredentialProblem,
  IssuableFormat,
  ParsedItem,
  StatusContext,
  VerifyContext,
} from '../credential-format.js'
import { isObject, jwsHeaderOf, statusProblems } from '../jwt-checks.js'
import { headerAlgOf, jwsSignerCallback, jwsVerifies, saltGenerator, sha256Hasher } from './sd-jwt-crypto.js'
import { RESERVED_CLAIMS, SD_JWT_VC, disclosureFrame, schemaIdOfVct, sdJwtVcPayload } from './sd-jwt-vc-claims.js'
import { sdJwtVcDcql } from './sd-jwt-vc.dcql.js'
import { sdJwtVcHolder } from './sd-jwt-vc.holder.js'
import { sdJwtVcOid4vci } from './sd-jwt-vc.oid4vci.js'

const TYPES = new Set([SD_JWT_VC, 'vc+sd-jwt'])
/** How old a KB-JWT may be (its `iat`), beyond the clock skew: a replayed one is refused. */
const KB_MAX_AGE_S = 300

export interface SdJwtVcDeps {
  resolver: DidResolver
  httpGet: HttpGet
  publicBaseUrl: string
}

/**
 * SD-JWT VC (draft-ietf-oauth-sd-jwt-vc, `typ: dc+sd-jwt`) through @sd-jwt/sd-jwt-vc, ES256 as
 * HAIP wallets require. `iss` is the hosted issuer's https URL (JWT VC Issuer Metadata lists its
 * keys) or its did:key; `vct` serves Type Metadata; `status` is an IETF Token Status List entry.
 * The library checks signatures, digests and the KB-JWT's nonce and sd_hash; `typ`, `vct`, the
 * issuer key, the KB-JWT's audience and age, holder binding and status are checked here.
 */
export function sdJwtVcFormat(deps: SdJwtVcDeps): IssuableFormat {
  return {
    id: SD_JWT_VC,
    keyType: 'P-256',
    oid4vci: sdJwtVcOid4vci,
    holder: sdJwtVcHolder,

    recognizes(item) {
      if (typeof item !== 'string' || !item.includes('~')) return false
      return TYPES.has(String(jwsHeaderOf(item.split('~')[0]!)?.typ))
    },

    parse: issuerSigned,

    idOf(item, parsed = issuerSigned(item)) {
      const jti = parsed.jws?.payload.jti
      return typeof jti === 'string' ? jti : undefined
    },

    async issue(content, signer) {
      const holderJwk =
        content.holderJwk ?? (content.subjectDid ? await holderKey(deps.resolver, content.subjectDid) : undefined)
      const payload = sdJwtVcPayload(content, signer.httpsIssuer ?? signer.did, holderJwk)
      const issuer = new SDJwtVcInstance({
        signer: jwsSignerCallback(signer.privateKey, signer.alg),
        signAlg: signer.alg,
        hasher: sha256Hasher,
        hashAlg: 'sha-256',
        saltGenerator,
      })
      const credential = await issuer.issue(
        payload as Parameters<SDJwtVcInstance['issue']>[0],
        disclosureFrame(content) as never,
        // SD-JWT VC §3.5: x5c (its leaf naming iss) beside kid, which JWT VC Issuer Metadata resolves.
        { header: { kid: signer.kid, ...(signer.x5c ? { x5c: signer.x5c } : {}) } },
      )
      // credential_hash covers the issuer-signed payload as decoded (digests, not the disclosures).
      return { credential, document: decodeCompactJws(credential.split('~')[0]!)!.payload }
    },

    async verify(item, ctx, parsed) {
      return verifySdJwtVc(String(item), ctx, deps, parsed ?? issuerSigned(item))
    },

    status(item, issuer, ctx) {
      return tokenStatus(decodeCompactJws(String(item).split('~')[0]!)?.payload.status, issuer, ctx)
    },

    dcql: sdJwtVcDcql(deps),
  }
}

/** The issuer-signed JWT of an SD-JWT (before its first `~`), decoded once. */
export const issuerSigned = (item: unknown): ParsedItem => ({
  jws: typeof item === 'string' ? decodeCompactJws(item.split('~')[0]!) : undefined,
})

async function verifySdJwtVc(
  item: string,
  ctx: VerifyContext,
  deps: SdJwtVcDeps,
  parsed: ParsedItem,
): Promise<CheckResult> {
  const decoded = parsed.jws
  if (!decoded) return { problems: [{ reason: 'unreadable', message: 'its issuer-signed JWT cannot be read' }] }
  const { header, payload: signed } = decoded
  // The library does not check typ or vct (SD-JWT VC §3.2.1, §3.2.2.2): both are required.
  if (!TYPES.has(String(header.typ)))
    return { problems: [{ reason: 'malformed', message: `its typ ${JSON.stringify(header.typ)} is not dc+sd-jwt` }] }
  if (typeof signed.vct !== 'string' || signed.vct.length === 0)
    return { problems: [{ reason: 'malformed', message: 'it has no vct' }] }
  if (typeof signed.iss !== 'string') return { problems: [{ reason: 'malformed', message: 'it has no iss' }] }
  const iss = signed.iss
  let issuerKey
  try {
    issuerKey = await resolveIssuerKey(iss, typeof header.kid === 'string' ? header.kid : undefined, deps)
  } catch (error) {
    if (!(error instanceof IssuerKeyUnavailable)) throw error
    return { problems: [{ reason: 'signature', message: `issuer key: ${error.message}` }] }
  }
  // The library reports either bad signature alike; which callback refused tells them apart.
  let kbRefused = false
  const verifier = new SDJwtVcInstance({
    hasher: sha256Hasher,
    // The alg is pinned to the resolved key's type; the header cannot choose another.
    verifier: (data, signature) => jwsVerifies(issuerKey, headerAlgOf(data), data, signature),
    // The KB-JWT must be signed by the key the issuer bound (cnf.jwk, SD-JWT VC §3.2.2.2).
    kbVerifier: async (data, signature, disclosed) => {
      const jwk = isObject(disclosed.cnf) && isObject(disclosed.cnf.jwk) ? disclosed.cnf.jwk : undefined
      kbRefused = !(await kbSigned(jwk, data, signature))
      return !kbRefused
    },
  })
  const problems: CredentialProblem[] = []
  let result: VerificationResult
  try {
    result = await verifier.verify(item, {
      currentDate: Math.floor(ctx.now.getTime() / 1000),
      skewSeconds: ctx.skewSeconds,
      // KB is checked only when a nonce is given: inside a presentation it is required.
      ...(ctx.presentation ? { keyBindingNonce: ctx.presentation.nonce } : {}),
      disableStatusVerification: true,
    })
  } catch (error) {
    if (kbRefused)
      return {
        problems: [
          {
            reason: 'binding',
            message: 'key binding: the KB-JWT is not signed by the key the credential is bound to (cnf)',
          },
        ],
      }
    return { problems: [libraryProblem(error)] }
  }
  const claims = result.payload as Record<string, unknown>
  if (ctx.presentation) problems.push(...kbProblems(result, ctx))
  if (ctx.holderDid !== undefined) problems.push(...(await holderProblems(claims.cnf, ctx.holderDid, ctx.resolver)))
  const status = statusProblems(await tokenStatus(claims.status, iss, ctx))
  problems.push(...status.problems)
  const attributes = Object.fromEntries(
    Object.entries(claims).filter(([name]) => !(RESERVED_CLAIMS as readonly string[]).includes(name)),
  )
  const vct = signed.vct
  const schemaId = schemaIdOfVct(deps.publicBaseUrl, vct)
  const type = typeof claims.credential_type === 'string' ? claims.credential_type : vct
  return {
    problems,
    credential: {
      id: typeof claims.jti === 'string' && claims.jti.length > 0 ? claims.jti : undefined,
      issuer: iss,
      types: ['VerifiableCredential', type],
      schemaIds: schemaId ? [vct, schemaId] : [vct],
      attributes,
      subject: ctx.holderDid !== undefined && problems.every((p) => p.reason !== 'subject') ? ctx.holderDid : undefined,
      issuedAt: typeof claims.iat === 'number' ? new Date(claims.iat * 1000) : undefined,
      expiresAt: typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : undefined,
      extensions: [],
      document: signed,
      revoked: status.revoked,
    },
  }
}

async function kbSigned(jwk: Record<string, unknown> | undefined, data: string, signature: string): Promise<boolean> {
  try {
    return jwk !== undefined && (await jwsVerifies(jwkKey(jwk), headerAlgOf(data), data, signature))
  } catch {
    return false
  }
}

/** What the library threw, as one problem with its reason. */
function libraryProblem(error: unknown): CredentialProblem {
  const message = error instanceof Error ? error.message : String(error)
  if (/expired/i.test(message)) return { reason: 'expired', message: 'it has expired' }
  if (/not yet valid/i.test(message)) return { reason: 'not_yet_valid', message: 'it is not valid yet' }
  if (/key binding|kb|nonce|sd_hash/i.test(message)) return { reason: 'binding', message: `key binding: ${message}` }
  return { reason: 'signature', message: `SD-JWT: ${message}` }
}

/** SD-JWT (RFC 9901 §7.3 step 5): the KB-JWT's aud is this verifier and its iat is recent. */
function kbProblems(result: VerificationResult, ctx: VerifyContext): CredentialProblem[] {
  const kb = result.kb?.payload
  if (!kb) return [{ reason: 'binding', message: 'key binding: it has no KB-JWT' }]
  const problems: CredentialProblem[] = []
  const audience = Array.isArray(kb.aud) ? kb.aud : [kb.aud]
  if (!audience.includes(ctx.presentation!.audience))
    problems.push({
      reason: 'binding',
      message: `key binding: the KB-JWT's aud ${JSON.stringify(kb.aud)} is not the verifier ${ctx.presentation!.audience}`,
    })
  const now = Math.floor(ctx.now.getTime() / 1000)
  if (typeof kb.iat !== 'number' || kb.iat < now - KB_MAX_AGE_S - ctx.skewSeconds)
    problems.push({ reason: 'binding', message: 'key binding: the KB-JWT is too old' })
  return problems
}

/** The bound key (cnf.jwk) must be an authentication key of the holder presenting it. */
async function holderProblems(cnf: unknown, holderDid: string, resolver: DidResolver): Promise<CredentialProblem[]> {
  const jwk = isObject(cnf) && isObject(cnf.jwk) ? cnf.jwk : undefined
  if (!jwk)
    return [
      { reason: 'subject', message: 'it is bound to no holder key (cnf): only credentials issued to the holder count' },
    ]
  let held: Record<string, unknown>[]
  try {
    held = relationshipJwks((await resolver.resolve(holderDid)).didDocument, 'authentication')
  } catch {
    return [{ reason: 'subject', message: `the holder ${holderDid} could not be resolved to compare its keys` }]
  }
  const bound = await thumbprint(jwk)
  const match = bound !== undefined && (await Promise.all(held.map(thumbprint))).includes(bound)
  return match
    ? []
    : [{ reason: 'subject', message: `it is bound to a key that is not one of the holder ${holderDid}` }]
}

/** RFC 7638 thumbprints compare keys whatever members beside the key they carry. */
async function thumbprint(jwk: Record<string, unknown>): Promise<string | undefined> {
  try {
    return await calculateJwkThumbprint(jwk as JWK)
  } catch {
    return undefined
  }
}

/** The holder's public key for `cnf`: its DID's first Ed25519 or P-256 authentication key. */
async function holderKey(resolver: DidResolver, did: string): Promise<Record<string, unknown> | undefined> {
  const jwk = relationshipJwks((await resolver.resolve(did)).didDocument, 'authentication')[0]
  if (!jwk) return undefined
  const { alg: _alg, use: _use, ...key } = jwk
  return key
}

/** The Token Status List entry of an SD-JWT VC (`status.status_list`); one without `status` is not revocable. */
function tokenStatus(status: unknown, iss: string, ctx: StatusContext): Promise<StatusState> {
  if (status === undefined) return Promise.resolve({ state: 'active' })
  return ctx.status.checkToken(isObject(status) ? status.status_list : undefined, iss, ctx.statusMemo)
}
