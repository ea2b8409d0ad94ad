import { Openid4vciClient, type CredentialOfferObject, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import { AppError } from '../../../errors.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { serviceCallbacks } from '../shared/oid4vc-callbacks.js'
import { recordActivity } from '../../wallet/wallet-activity.js'
import { offerText } from './offer-uri.js'
import { protocolStep } from './protocol-step.js'

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
/** What of a holder's free-text reason is kept in the activity log. */
const MAX_REASON = 500

type ClaimPath = Array<string | number | null>

export interface OfferPreview {
  credential_issuer: string
  issuer: { name: string | null; logo_uri: string | null; domain: string; did: string | null }
  credential_configurations: Array<{
    id: string
    format: string
    credential_type: string
    display_name: string | null
    claims: Array<{ path: ClaimPath; display_name: string | null; mandatory: boolean }>
  }>
  tx_code: { input_mode: string | null; length: number | null; description: string | null } | null
  grant: 'pre-authorized_code' | 'authorization_code'
}

/**
 * What an OpenID4VCI credential offer asks the holder to take, read before anything is redeemed
 * (docs/openid4vc.md "Looking at an offer first"): the offer (by value or by reference, OID4VCI
 * 1.0 §4.1) and the issuer's metadata (§12.2) are fetched with the same library, guarded fetch
 * and https rules as the acceptance; the token endpoint is never called, so the pre-authorized
 * code and any transaction code stay unspent. A decline is recorded in the holder's activity only:
 * OpenID4VCI has no message that tells an issuer an offer was refused.
 */
export class OfferPreviewService {
  constructor(
    private readonly deps: {
      db: Database
      resolver: DidResolver
      /** The guarded fetch (SSRF checks, size cap, deadline): offers name any URL. */
      fetch: typeof fetch
      clock: Clock
    },
  ) {}

  async preview(offerUri: string): Promise<OfferPreview> {
    const { offer, metadata } = await this.read(offerUri)
    return describeOffer(offer, metadata)
  }

  /**
   * Records the holder's refusal. The offer is read to name the issuer and what it offered; an offer
   * that cannot be read any more (expired, the issuer down) is declined all the same, named by its URI's host.
   */
  async decline(
    holderDid: string,
    input: { offer_uri: string; reason?: string },
  ): Promise<{ credential_issuer: string | null }> {
    const text = offerText(input.offer_uri)
    let details: Record<string, unknown>
    try {
      const { offer, metadata } = await this.read(text)
      const preview = describeOffer(offer, metadata)
      details = {
        credential_issuer: preview.credential_issuer,
        issuer_name: preview.issuer.name,
        credential_configuration_ids: preview.credential_configurations.map((c) => c.id),
        credential_types: preview.credential_configurations.map((c) => c.credential_type),
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      details = { credential_issuer: null, offer_host: offerHost(text), unread: error.message }
    }
    const reason = input.reason === undefined ? {} : { reason: input.reason.slice(0, MAX_REASON) }
    await recordActivity(this.deps.db, {
      holder_did: holderDid,
      type: 'credential_offer_declined',
      details: { protocol: 'openid4vci', ...details, ...reason },
      at: this.deps.clock.now(),
    })
    return { credential_issuer: (details.credential_issuer as string | null) ?? null }
  }

  private async read(offerUri: string): Promise<{ offer: CredentialOfferObject; metadata: IssuerMetadataResult }> {
    const uri = offerText(offerUri)
    const client = new Openid4vciClient({
      callbacks: {
        ...serviceCallbacks({
          resolver: this.deps.resolver,
          keys: { signingKey: () => Promise.reject(new Error('a preview signs nothing')) },
        }),
        fetch: this.deps.fetch,
      },
    })
    const offer = await protocolStep('reading the credential offer', 'offer_uri', () =>
      client.resolveCredentialOffer(uri),
    )
    const metadata = await protocolStep('reading the issuer metadata', 'offer_uri', () =>
      client.resolveIssuerMetadata(offer.credential_issuer),
    )
    return { offer, metadata }
  }
}

type Display = { name?: unknown; locale?: unknown; logo?: { uri?: unknown; url?: unknown } }
type ClaimDescription = { path?: unknown; mandatory?: unknown; display?: Display[] }

/** The offer as the holder reads it: the issuer's display (§12.2.4), each offered configuration's display and claims (Appendix A). */
export function describeOffer(offer: CredentialOfferObject, metadata: IssuerMetadataResult): OfferPreview {
  const issuerMetadata = metadata.credentialIssuer as typeof metadata.credentialIssuer & { display?: Display[] }
  const issuerDisplay = preferred(issuerMetadata.display)
  const configurations = offer.credential_configuration_ids.map((id) => {
    const configuration = (metadata.credentialIssuer.credential_configurations_supported[id] ?? {}) as Record<
      string,
      unknown
    > & {
      format?: string
      vct?: string
      doctype?: string
      credential_definition?: { type?: string[] }
      // OID4VCI 1.0 final nests display and claims in credential_metadata; drafts had them at the top.
      credential_metadata?: { display?: Display[]; claims?: ClaimDescription[] }
      display?: Display[]
      claims?: ClaimDescription[] | Record<string, unknown>
    }
    const display = preferred(configuration.credential_metadata?.display ?? configuration.display)
    const listed = configuration.credential_metadata?.claims ?? configuration.claims
    // Metadata of formats the library does not know is validated loosely: entries may be anything.
    const claims = (Array.isArray(listed) ? listed : []).filter(
      (c): c is ClaimDescription => typeof c === 'object' && c !== null,
    )
    return {
      id,
      format: configuration.format ?? 'unknown',
      credential_type: credentialType(id, configuration),
      display_name: text(display?.name),
      claims: claims
        .filter((c) => Array.isArray(c.path))
        .map((c) => ({
          path: (c.path as unknown[]).map((p) => (typeof p === 'string' || typeof p === 'number' ? p : null)),
          display_name: text(preferred(c.display)?.name),
          mandatory: c.mandatory === true,
        })),
    }
  })
  const preAuthorized = offer.grants?.[PRE_AUTHORIZED]
  const txCode = preAuthorized?.tx_code
  return {
    credential_issuer: offer.credential_issuer,
    issuer: {
      name: text(issuerDisplay?.name),
      logo_uri: httpsUrl(text(issuerDisplay?.logo?.uri) ?? text(issuerDisplay?.logo?.url)),
      domain: new URL(offer.credential_issuer).host,
      did: null,
    },
    credential_configurations: configurations,
    tx_code: txCode
      ? {
          input_mode: txCode.input_mode ?? null,
          length: txCode.length ?? null,
          description: txCode.description ?? null,
        }
      : null,
    grant: preAuthorized ? 'pre-authorized_code' : 'authorization_code',
  }
}

/** The English display if there is one, else the first (OID4VCI 1.0 §12.2.4: one entry per locale). */
function preferred(displays: Display[] | undefined): Display | undefined {
  if (!Array.isArray(displays)) return undefined
  const objects = displays.filter((d): d is Display => typeof d === 'object' && d !== null)
  return objects.find((d) => typeof d.locale === 'string' && d.locale.toLowerCase().startsWith('en')) ?? objects[0]
}

/** What kind of credential a configuration is: its vct (SD-JWT VC), doctype (mdoc) or most specific W3C type. */
function credentialType(
  id: string,
  c: { vct?: string; doctype?: string; credential_definition?: { type?: string[] } },
): string {
  if (typeof c.vct === 'string') return c.vct
  if (typeof c.doctype === 'string') return c.doctype
  const types = (c.credential_definition?.type ?? []).filter(
    (t) => typeof t === 'string' && t !== 'VerifiableCredential',
  )
  return types.at(-1) ?? id
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

/** A logo the holder's screen may load: an https URL only (not javascript:, data: or plain http), as the issuer wrote it. */
function httpsUrl(value: string | null): string | null {
  return value !== null && URL.canParse(value) && new URL(value).protocol === 'https:' ? value : null
}

function offerHost(uri: string): string | null {
  const params = new URL(uri).searchParams
  const byReference = params.get('credential_offer_uri')
  if (byReference && URL.canParse(byReference)) return new URL(byReference).host
  try {
    const issuer = (JSON.parse(params.get('credential_offer') ?? '{}') as { credential_issuer?: unknown })
      .credential_issuer
    return typeof issuer === 'string' && URL.canParse(issuer) ? new URL(issuer).host : null
  } catch {
    return null
  }
}
