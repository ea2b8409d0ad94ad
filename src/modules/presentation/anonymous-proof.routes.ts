import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import { AnonymousProof, AnonymousProofBody, AnonymousProofParams } from './anonymous-proof.schemas.js'
import type { AnonymousProofService } from './anonymous-proof.service.js'

/**
 * POST /api/wallet/:did/credentials/:credential_id/anonymous-proof (mounted under /api/wallet).
 * 200, not 201: the proof is computed for the caller and nothing is stored (spec "Errors" §3).
 */
export const anonymousProofRoutes: FastifyPluginAsyncTypebox<{ proofs: AnonymousProofService }> = async (
  app,
  { proofs },
) => {
  app.post(
    '/:did/credentials/:credential_id/anonymous-proof',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Derive a selective-disclosure and predicate proof (BBS + Bulletproofs++ bound checks) from a credential, for one verifier and nonce',
        description:
          'The proof object goes, as is, into vp.verifiableCredential of a VP-JWT. 404: not a credential of this wallet; 409: no BBS signature, revoked or expired; 400: unknown attribute, predicate on a non-number/date attribute, attribute both revealed and predicated; 422: a predicate does not hold.',
        params: AnonymousProofParams,
        body: AnonymousProofBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), proof: AnonymousProof }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const proof = await proofs.derive(request.auth!.did, request.params.credential_id, request.body)
      return { success: true, message: 'Anonymous proof derived', proof }
    },
  )
}
