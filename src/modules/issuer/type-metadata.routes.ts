import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { typeMetadata } from '../credentials/formats/registered-formats.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { IssuerService } from './issuer.service.js'

/**
 * Public: what an SD-JWT VC's `vct` (`<base>/vct/<schema_id>`) resolves to, its Type Metadata
 * (draft-ietf-oauth-sd-jwt-vc §6.3.1: retrieved from the vct URL itself).
 */
export const typeMetadataRoutes: FastifyPluginAsyncTypebox<{ issuers: IssuerService; publicBaseUrl: string }> = async (
  app,
  { issuers, publicBaseUrl },
) => {
  app.get(
    '/vct/:schema_id',
    {
      schema: {
        tags: ['Schemas'],
        summary: 'SD-JWT VC Type Metadata of the credentials of one schema',
        security: [],
        params: Type.Object({ schema_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const schema = await issuers.publicSchema(request.params.schema_id)
      return reply
        .header('cache-control', 'public, max-age=60')
        .send(typeMetadata({ ...schema, attributes: schema.attributes }, publicBaseUrl))
    },
  )
}
