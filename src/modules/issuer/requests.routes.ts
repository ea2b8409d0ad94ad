import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { CredentialRequest, requestView, RequestStatusQuery } from './requests.schemas.js'
import type { CredentialRequestService } from './requests.service.js'

const errors = errorRefs(400, 401, 403, 404)
const tags = ['Issuer']

/** The issuer's inbox of holder credential requests (decisions: /api/wallet/issuer/...). */
export const issuerRequestRoutes: FastifyPluginAsyncTypebox<{ requests: CredentialRequestService }> = async (
  app,
  { requests },
) => {
  app.get(
    '/:did/requests',
    {
      schema: {
        tags,
        summary: 'Credential requests addressed to this issuer, paginated',
        params: Type.Object({ did: Did }),
        querystring: Type.Composite([PageQuery, Type.Object({ status: RequestStatusQuery })]),
        response: { 200: pageResponse(CredentialRequest), ...errors },
      },
    },
    async (request) =>
      paginate(
        request.query,
        (page) => requests.listForIssuer(request.auth!.did, request.query.status, page),
        requestView,
      ),
  )

  app.get(
    '/:did/requests/:request_id',
    {
      schema: {
        tags,
        summary: 'One credential request',
        params: Type.Object({ did: Did, request_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Type.Object({ success: Type.Boolean(), request: CredentialRequest }), ...errors },
      },
    },
    async (request) => ({
      success: true,
      request: requestView(await requests.get(request.auth!.did, request.params.request_id)),
    }),
  )
}
