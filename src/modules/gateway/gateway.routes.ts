import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import { PayloadTooLargeError } from '../../errors.js'

/**
 * Read-only gateway over the content store, after the IPFS trustless gateway: raw bytes by
 * default, a CAR of the whole DAG with `?format=car` or `Accept: application/vnd.ipld.car`.
 * Content is addressed by hash, so it is immutable and cacheable forever.
 */
export const gatewayRoutes: FastifyPluginAsyncTypebox<{ content: ContentStore; maxBytes: number }> = async (
  app,
  { content, maxBytes },
) => {
  app.get(
    '/:cid',
    {
      schema: {
        tags: ['IPFS'],
        summary: 'Fetch stored content by CID (bytes, or a CAR)',
        params: Type.Object({ cid: Type.String({ minLength: 10, maxLength: 256 }) }),
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('raw'), Type.Literal('car')])) }),
        response: { 400: { $ref: 'ErrorResponse#' }, 404: { $ref: 'ErrorResponse#' }, 413: { $ref: 'ErrorResponse#' } },
      },
    },
    async (request, reply) => {
      const { cid } = request.params
      // Only a successful answer is immutable; errors (404 now, content stored later) are not.
      const immutable = () =>
        reply.header('cache-control', 'public, max-age=31536000, immutable').header('x-ipfs-path', `/ipfs/${cid}`)
      const wantsCar =
        request.query.format === 'car' || (request.headers.accept ?? '').includes('application/vnd.ipld.car')
      if (wantsCar) {
        if (!(await content.has(cid))) {
          // get() raises the right error (malformed CID: 400, absent: 404).
          await content.get(cid, { maxBytes: 1 })
        }
        const chunks: Uint8Array[] = []
        let total = 0
        for await (const chunk of content.exportCar(cid)) {
          total += chunk.length
          if (total > maxBytes) throw new PayloadTooLargeError(`The DAG of ${cid} is larger than ${maxBytes} bytes`)
          chunks.push(chunk)
        }
        immutable()
        reply.header('content-disposition', `attachment; filename="${cid}.car"`)
        return reply
          .type('application/vnd.ipld.car; version=1')
          .header('content-length', total)
          .send(Buffer.concat(chunks))
      }
      const bytes = await content.get(cid, { maxBytes })
      immutable()
      return reply.type('application/octet-stream').send(Buffer.from(bytes))
    },
  )
}
