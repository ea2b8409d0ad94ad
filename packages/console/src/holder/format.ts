/** Words for what the wallet shows: claim paths, values, formats, dates and activity entries. */

import { doctypeLabel, isMdocPath, mdocClaimLabel, mdocDoctypeOf, readableText, readableValue } from './mdoc.ts'

type ClaimPath = Array<string | number | null>

/** The claims an issuer or the protocol adds (JWT, SD-JWT VC, VCDM): shown apart from the holder's own. */
const TECHNICAL = new Set([
  'iss',
  'sub',
  'aud',
  'iat',
  'nbf',
  'exp',
  'jti',
  'vct',
  'vct#integrity',
  'cnf',
  'status',
  '_sd',
  '_sd_alg',
  '@context',
  'type',
  'id',
  'issuer',
  'credentialSchema',
  'credentialStatus',
  'validFrom',
  'validUntil',
  'issuanceDate',
  'expirationDate',
  'proof',
  'credential_type',
  'vc',
])

/**
 * A JWT-VC's claims sit under `credentialSubject` (or `vc.credentialSubject`); the holder reads the
 * attribute's name. An mdoc's `[namespace, element]` (OpenID4VP 1.0 §7.2) reads as its document's name and the element's.
 */
export function claimLabel(path: ClaimPath, format?: string, doctype?: string): string {
  if ((format === 'mso_mdoc' && path.length === 2) || isMdocPath(path)) return mdocClaimLabel(path, doctype)
  const parts = path.map((p) => (p === null ? '(each)' : String(p)))
  const subject = parts.indexOf('credentialSubject')
  const rest = subject >= 0 ? parts.slice(subject + 1) : parts
  return rest.length ? rest.join(' › ') : parts.join(' › ')
}

export function isPersonalClaim(path: ClaimPath): boolean {
  if (path.includes('credentialSubject'))
    return path.length > path.indexOf('credentialSubject') + 1 && path.at(-1) !== 'id'
  return !TECHNICAL.has(String(path[0]))
}

/** The value at a claim path (null: every element of an array, OID4VP 1.0 §7). */
export function valueAt(root: unknown, path: ClaimPath): unknown {
  let current: unknown = root
  for (const step of path) {
    if (current === null || current === undefined) return undefined
    if (step === null) return current
    current = (current as Record<string | number, unknown>)[step]
  }
  return current
}

export function formatValue(value: unknown): string {
  if (value === undefined) return '(not shown)'
  if (value === null) return '(empty)'
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  // Lists and nested objects (an mDL's driving_privileges) as words, never JSON.
  if (typeof value === 'object') return readableText(readableValue(value))
  return String(value)
}

const FORMATS: Record<string, string> = {
  'dc+sd-jwt': 'SD-JWT VC',
  'vc+sd-jwt': 'SD-JWT VC',
  jwt_vc_json: 'JWT-VC',
  'vc+jwt': 'JWT-VC',
  ldp_vc: 'Data Integrity',
  'eddsa-rdfc-2022': 'Data Integrity (eddsa-rdfc-2022)',
  'eddsa-jcs-2022': 'Data Integrity (eddsa-jcs-2022)',
  'bbs-2023': 'Data Integrity (bbs-2023)',
  mso_mdoc: 'mdoc',
}

export function formatName(format: string): string {
  const name = FORMATS[format]
  return name ? `${name} (${format})` : format
}

/** A wallet record's format, read from how the credential is stored (the list has no format field). */
export function storedFormat(credential: { jwt: string; signature_type: string; credential_type: string }): string {
  if (credential.signature_type === 'bbs+') return 'BBS+ anonymous credential'
  if (mdocDoctypeOf(credential)) return formatName('mso_mdoc')
  const text = credential.jwt.trim()
  if (text.startsWith('{')) return 'Data Integrity (VCDM JSON)'
  if (text.includes('~')) return formatName('dc+sd-jwt')
  return `JWT-VC (${credential.signature_type})`
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}

export const isUrl = (text: string) => /^https?:\/\//.test(text)

export function domainOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/** A client identifier without its prefix (OID4VP 1.0 §5.9): the DID or the response URI's host. */
export function clientIdName(clientId: string): string {
  if (clientId.startsWith('decentralized_identifier:')) return clientId.slice('decentralized_identifier:'.length)
  if (clientId.startsWith('redirect_uri:')) return domainOf(clientId.slice('redirect_uri:'.length))
  return clientId
}

/** A DID shortened for a line of text; the whole DID goes in the element's title. */
export function shortDid(did: string): string {
  return did.length > 36 ? `${did.slice(0, 24)}…${did.slice(-8)}` : did
}

export type NameOf = (did: string | undefined | null) => string

/** An activity entry as a sentence (docs/wallet.md "Activities", the consent entries included). */
export function activitySentence(
  type: string,
  details: Record<string, unknown>,
  nameOf: NameOf,
  credentialType?: string,
): string {
  const str = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : undefined)
  // An SD-JWT VC's type is its vct, a URL: the wallet's own record names it better, else "credential".
  const readable = (t: unknown) =>
    typeof t === 'string' && t && !/^https?:\/\//.test(t) ? (doctypeLabel(t) ?? t) : undefined
  const types = Array.isArray(details.credential_types)
    ? (details.credential_types as unknown[]).map(readable).filter(Boolean).join(', ') || undefined
    : undefined
  const kind = credentialType ?? readable(details.credential_type) ?? types ?? 'credential'
  const issuer =
    str('issuer_name') ?? nameOf(str('issuer_did') ?? str('issuer') ?? str('credential_issuer') ?? str('offer_host'))
  const verifier = nameOf(str('verifier_name') ?? str('verifier_did') ?? str('verifier') ?? str('client_id'))
  // The holder's own claims name what was shared; the credential's technical claims (iss, cnf…) always travel.
  const claims = Array.isArray(details.claims)
    ? (details.claims as unknown[])
        .filter((c): c is ClaimPath => Array.isArray(c) && isPersonalClaim(c))
        .map((c) => claimLabel(c))
        .join(', ')
    : undefined
  switch (type) {
    case 'credential_received':
      return `Received a ${kind} from ${issuer}`
    case 'credential_imported':
      return details.restored
        ? `Restored a ${kind} from ${issuer} to your wallet`
        : `Added a ${kind} from ${issuer} to your wallet (verified)`
    case 'credential_deleted':
      return `Deleted a ${kind} from ${issuer} from your wallet`
    case 'credential_withdrawn':
      return `Withdrew your ${kind} from use`
    case 'credential_revoked':
      return `${issuer} revoked your ${kind}`
    case 'credential_shared':
      return `Made a share link${str('expires_at') ? `, valid until ${formatDate(str('expires_at'))}` : ''}`
    case 'share_accessed':
      return `Someone opened your share link${typeof details.uses === 'number' ? ` (use ${details.uses})` : ''}`
    case 'share_revoked':
      return 'Revoked a share link'
    case 'evidence_uploaded':
      return `Uploaded evidence${str('label') ? ` “${str('label')}”` : ''}`
    case 'credential_request_created':
      return `Asked ${issuer} for a ${kind}`
    case 'credential_accepted':
      return `Told the issuer the ${kind} is stored`
    case 'credential_failure':
      return `Told the issuer the ${kind} could not be stored`
    case 'credential_offer_accepted':
      return `Accepted a ${kind} offered by ${issuer}`
    case 'credential_offer_declined':
      return `Declined a ${types ?? 'credential'} offer from ${issuer}${str('reason') ? ` (${str('reason')})` : ''}`
    case 'presentation_shared':
      return `Shared ${claims || 'a presentation'} with ${verifier}`
    case 'presentation_declined':
      return `Declined ${verifier}'s request${str('reason') ? ` (${str('reason')})` : ''}`
    case 'presentation_submitted':
      return details.protocol === 'openid4vp'
        ? `${verifier} accepted your presentation`
        : `Sent a presentation to ${verifier}`
    case 'presentation_rejected':
      return details.protocol === 'openid4vp'
        ? `${verifier} refused your presentation`
        : `Declined ${verifier}'s request`
    case 'consent_granted':
      return `Gave ${verifier} consent${str('purpose') ? ` for “${str('purpose')}”` : ''}`
    case 'consent_revoked':
      return `Withdrew ${verifier}'s consent${str('purpose') ? ` for “${str('purpose')}”` : ''}`
    default: {
      const words = type.replace(/_/g, ' ')
      return words.charAt(0).toUpperCase() + words.slice(1)
    }
  }
}
