import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { errorRefs } from '../shared/route-helpers.js'
import { SchemaBody } from './issuer.schemas.js'

/**
 * Public: the ready-made schemas the credential formats offer (the ISO mDL, the EU PID). Each is
 * a body for `POST /api/issuer/:did/schemas`, created as it is or changed first.
 */
export const schemaPresetRoutes: FastifyPluginAsyncTypebox<{ formats: FormatRegistry }> = async (app, { formats }) => {
  app.get(
    '/api/schema-presets',
    {
      schema: {
        tags: ['Schemas'],
        summary: 'Ready-made schemas (ISO mDL, EU PID), each a body for the schema route',
        security: [],
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            presets: Type.Array(
              Type.Object({
                id: Type.String(),
                description: Type.String(),
                format: Type.String({ description: 'The credential format the schema is made for' }),
                schema: SchemaBody,
              }),
            ),
          }),
          ...errorRefs(400),
        },
      },
    },
    async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').send({
        success: true,
        presets: formats.schemaPresets.map((p) => ({ ...p, schema: p.schema as SchemaBody })),
      }),
  )
}
