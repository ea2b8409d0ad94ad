import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import { DeriveBody, DeriveParams, DerivedCredential } from './bbs-2023-derive.schemas.js'
import type { Bbs2023DeriveService } from './bbs-2023-derive.service.js'

/**
 * POST /api/wallet/:did/credentials/:credential_id/derive (mounted under /api/wallet), beside the
 * spec's anonymous-proof route: that one proves Dock BBS predicates, this one derives the
 * standard bbs-2023 proof. 200: computed for the caller, nothing stored.
 */
export const bbs2023DeriveRoutes: FastifyPluginAsyncTypebox<{ derivation: Bbs2023DeriveService }> = async (
  app,
  { derivation },
) => {
  app.post(
    '/:did/credentials/:credential_id/derive',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Derive a bbs-2023 selective-disclosure proof from a bbs-2023 credential, disclosing the chosen JSON Pointers',
        description:
          'The derived credential goes, as is, into vp.verifiableCredential. 404: not a credential of this wallet; 409: not a bbs-2023 credential, withdrawn, revoked or expired; 400: a pointer that is malformed or selects nothing.',
        params: DeriveParams,
        body: DeriveBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), credential: DerivedCredential }),
          ...errorRefs(400, 401, 403, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const credential = await derivation.derive(request.auth!.did, request.params.credential_id, request.body.pointers)
      return { success: true, message: 'bbs-2023 proof derived', credential }
    },
  )
}
