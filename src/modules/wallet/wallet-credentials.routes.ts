import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { EvidenceAttachment } from '../issuer/issuance.schemas.js'
import { errorRefs, PageQuery, paginate } from '../shared/route-helpers.js'
import type { WalletCredentialRow } from './wallet-credentials.repository.js'
import type { WalletCredentialService } from './wallet-credentials.service.js'

const Json = Type.Record(Type.String(), Type.Unknown())
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

/** A wallet listing entry: the spec's fields first, then additive ones the holder needs. */
const WalletCredential = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  issuer_name: Type.String(),
  credential_type: Type.String(),
  credential_preview: Json,
  credential_data: Json,
  ipfs_hash: Type.String(),
  status: Type.String(),
  signature_type: Type.String(),
  evidence_attachments: Type.Array(EvidenceAttachment),
  extensions: Type.Array(Type.String()),
  owner_did: Type.String(),
  schema_id: Type.String(),
  credential_hash: Type.String(),
  kyber_encrypted: Type.Boolean(),
  jwt: Type.String(),
  anonymous_credential: Nullable(Json),
  evidence_required: Type.Array(Type.String()),
  expiration_date: Nullable(Type.String()),
  expired: Type.Boolean(),
  created_at: Type.String(),
})

export const walletCredentialRoutes: FastifyPluginAsyncTypebox<{ wallet: WalletCredentialService; now: () => Date }> = async (app, { wallet, now }) => {
  const view = (row: WalletCredentialRow) => ({
    ...row,
    owner_did: row.owner_did!,
    expiration_date: row.expiration_date && new Date(row.expiration_date).toISOString(),
    expired: row.expiration_date !== null && new Date(row.expiration_date).getTime() <= now().getTime(),
    created_at: new Date(row.created_at).toISOString(),
  })

  app.get('/:did/credentials', {
    schema: {
      tags: ['Wallet'],
      summary: "The holder's credentials (issued to it, not removed from the wallet), paginated",
      params: Type.Object({ did: Did }),
      querystring: Type.Composite([PageQuery, Type.Object({ status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])), type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) })]),
      response: {
        200: Type.Object({ success: Type.Boolean(), data: Type.Array(WalletCredential), count: Type.Integer(), query_did: Type.String(), next_cursor: Nullable(Type.String()) }),
        ...errorRefs(400, 401, 403),
      },
    },
  }, async (request) => {
    // The auth hook checked the path DID against the token after normalising it; the token's DID is that normal form.
    const did = request.auth!.did
    const page = await paginate(request.query, (p) => wallet.list(did, { status: request.query.status, credential_type: request.query.type }, p), view)
    return { ...page, query_did: did }
  })

  app.delete('/:did/credentials/:credential_id', {
    schema: {
      tags: ['Wallet'],
      summary: 'Remove a credential from the wallet only (not a revocation: issuer record, status list and chain unchanged)',
      params: Type.Object({ did: Did, credential_id: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String() }), ...errorRefs(400, 401, 403, 404) },
    },
  }, async (request) => {
    await wallet.remove(request.auth!.did, request.params.credential_id)
    return { success: true, message: 'Credential removed from the wallet' }
  })
}
