import { createHmac, randomBytes, randomInt } from 'node:crypto'
import { authorizationCodeGrantIdentifier, preAuthorizedCodeGrantIdentifier } from '@openid4vc/oauth2'
import { Openid4vciIssuer } from '@openid4vc/openid4vci'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import { NotFoundError, ValidationError } from '../../../errors.js'
import {
  findOffer,
  type OfferInput,
  type OfferPublication,
  type PreparedPublication,
} from '../../issuer/offers.service.js'
import type { OfferRow } from '../../issuer/offers.types.js'
import { qrSvgDataUrl } from '../../qr/qr-image.js'
import { issuerContext, servesOid4vci, sha256Hex, type ContextDeps, type IssuerContext } from './oid4vci-context.js'
import { configurationId } from './oid4vci-metadata.js'
import * as repo from './oid4vci.repository.js'
import type { TxCodeSpec } from './oid4vci.table.js'

export interface Oid4vciOffersDeps extends ContextDeps {
  db: Database
  clock: Clock
  /** The key deriving each offer's pre-authorized code from its public handle (HMAC-SHA-256). */
  codeKey: Uint8Array
}

/** What an offer's creation showed once and is kept only as digests: sealed by an Idempotency-Key. */
interface OfferSecret {
  handle: string
  tx_code?: string
}

const TEXT_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

/**
 * The spec's offers as OpenID4VCI credential offers (OID4VCI 1.0 §4.1), by reference: the
 * `credential_offer_uri` names an unguessable handle; the pre-authorized code is the HMAC of that
 * handle under a service key, so the database holds digests of both and neither can be read back
 * from it. The code is spent once by the token endpoint; the tx_code is stored as a digest and shown once.
 */
export class Oid4vciOffers implements OfferPublication {
  constructor(private readonly deps: Oid4vciOffersDeps) {}

  async prepare(offer: {
    issuerDid: string
    schemaId: string
    format: string | null
    input: OfferInput
  }): Promise<PreparedPublication | undefined> {
    const formatId = offer.format ?? this.deps.formats.defaultId
    const asked =
      offer.input.tx_code !== undefined ||
      offer.input.requires_approval !== undefined ||
      offer.input.dpop_required !== undefined ||
      offer.input.pre_authorized !== undefined
    const served = this.deps.formats.oid4vci()
    const format = served.find((f) => f.id === formatId)
    if (!format) {
      if (asked)
        throw new ValidationError(
          `format "${formatId}" has no OpenID4VCI credential configuration (${served.map((f) => f.id).join(', ')})`,
          { details: { field: 'format' } },
        )
      return undefined
    }
    if (!servesOid4vci(this.deps.publicBaseUrl)) {
      if (asked)
        throw new ValidationError(
          'tx_code, requires_approval, dpop_required and pre_authorized are OpenID4VCI settings: it is served only on an https PUBLIC_BASE_URL',
        )
      return undefined
    }
    const identity = await this.deps.identities.identity(offer.issuerDid)
    if (!identity) return undefined
    const handle = randomBytes(32).toString('base64url')
    const preAuthorized = offer.input.pre_authorized !== false
    if (!preAuthorized && offer.input.tx_code)
      throw new ValidationError('tx_code goes with the pre-authorized code grant only', {
        details: { field: 'tx_code' },
      })
    const spec = txCodeSpec(offer.input.tx_code)
    const txCode = spec && generateTxCode(spec)
    const configuration = configurationId(offer.schemaId, format)
    return {
      store: async (trx, row) => {
        await repo.insertOffer(trx, {
          offer_id: row.id,
          issuer_did: offer.issuerDid,
          reference: sha256Hex(handle),
          configuration_id: configuration,
          pre_authorized_code_digest: preAuthorized ? sha256Hex(this.codeOf(handle)) : null,
          issuer_state_digest: preAuthorized ? null : sha256Hex(this.issuerStateOf(handle)),
          tx_code_digest: txCode ? sha256Hex(txCode) : null,
          tx_code_spec: spec,
          dpop_required: offer.input.dpop_required ?? false,
          requires_approval: offer.input.requires_approval ?? false,
          batch_size: 1,
        })
      },
      answer: () => this.answer(identity.web_id, handle, configuration, spec, preAuthorized, txCode),
      // The handle (whence the URI and the pre-authorized code) and the tx_code are stored only as digests.
      secret: { handle, ...(txCode ? { tx_code: txCode } : {}) } satisfies OfferSecret,
    }
  }

  async answerAgain(offer: OfferRow, secret: unknown): Promise<Record<string, unknown>> {
    const { handle, tx_code: txCode } = secret as OfferSecret
    const [found, identity] = await Promise.all([
      repo.findOffer(this.deps.db, offer.id),
      this.deps.identities.identity(offer.issuer_did),
    ])
    if (!found || !identity)
      throw new NotFoundError('The OpenID4VCI offer this Idempotency-Key created no longer exists')
    return this.answer(
      identity.web_id,
      handle,
      found.configuration_id,
      found.tx_code_spec,
      found.pre_authorized_code_digest !== null,
      txCode ?? null,
    )
  }

  /** The creation answer's OpenID4VCI fields: the offer by reference, its QR and the tx_code to pass on. */
  private async answer(
    webId: string,
    handle: string,
    configuration: string,
    spec: TxCodeSpec | null,
    preAuthorized: boolean,
    txCode: string | null,
  ) {
    const ctx = await issuerContext(this.deps, webId, configuration)
    const created = await this.offerFor(ctx, handle, configuration, spec, preAuthorized)
    return {
      credential_offer_uri: created.credentialOffer,
      credential_offer_qr: await qrSvgDataUrl(created.credentialOffer),
      credential_offer: created.credentialOfferObject,
      credential_configuration_id: configuration,
      ...(txCode ? { tx_code: txCode } : {}),
    }
  }

  /** The credential offer object behind a `credential_offer_uri`, while its code is unspent and the offer open. */
  async offerObject(webId: string, handle: string): Promise<Record<string, unknown>> {
    const found = await repo.findOfferByReference(this.deps.db, sha256Hex(handle))
    const ctx = found && !found.code_used_at ? await issuerContext(this.deps, webId, found.configuration_id) : undefined
    if (!found || !ctx || found.issuer_did !== ctx.identity.did)
      throw new NotFoundError('Credential offer not found, redeemed or expired')
    const offer = await findOffer(this.deps.db, found.issuer_did, found.offer_id)
    const now = this.deps.clock.now()
    if (!offer || offer.status !== 'active' || (offer.expires_at && new Date(offer.expires_at) <= now))
      throw new NotFoundError('Credential offer not found, redeemed or expired')
    return (
      await this.offerFor(
        ctx,
        handle,
        found.configuration_id,
        found.tx_code_spec,
        found.pre_authorized_code_digest !== null,
      )
    ).credentialOfferObject
  }

  private codeOf(handle: string): string {
    return createHmac('sha256', this.deps.codeKey).update(handle).digest('base64url')
  }

  /** The `issuer_state` of an authorization-code offer (§4.1.1), derived like the code, under its own label. */
  private issuerStateOf(handle: string): string {
    return createHmac('sha256', this.deps.codeKey).update(`issuer_state ${handle}`).digest('base64url')
  }

  private offerFor(
    ctx: IssuerContext,
    handle: string,
    configuration: string,
    spec: TxCodeSpec | null,
    preAuthorized: boolean,
  ) {
    const library = new Openid4vciIssuer({ callbacks: ctx.callbacks })
    return library.createCredentialOffer({
      issuerMetadata: ctx.metadataResult,
      credentialConfigurationIds: [configuration],
      grants: preAuthorized
        ? {
            [preAuthorizedCodeGrantIdentifier]: {
              'pre-authorized_code': this.codeOf(handle),
              ...(spec ? { tx_code: { ...spec } } : {}),
            },
          }
        : { [authorizationCodeGrantIdentifier]: { issuer_state: this.issuerStateOf(handle) } },
      credentialOfferUri: ctx.endpoints.offer(handle),
    })
  }
}

function txCodeSpec(asked: OfferInput['tx_code']): TxCodeSpec | null {
  if (asked === undefined || asked === false) return null
  const given = asked === true ? {} : asked
  return {
    length: given.length ?? 6,
    input_mode: given.input_mode ?? 'numeric',
    ...(given.description ? { description: given.description } : {}),
  }
}

function generateTxCode(spec: TxCodeSpec): string {
  const alphabet = spec.input_mode === 'numeric' ? '0123456789' : TEXT_ALPHABET
  return Array.from({ length: spec.length }, () => alphabet[randomInt(alphabet.length)]).join('')
}
