import { createReadStream } from 'node:fs'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { DependencyUnavailableError, NotFoundError } from '../../errors.js'
import { CONSOLE_PREFIX } from '../../plugins/route-access.js'
import { consoleBuilt, resolveConsoleFile } from './console-files.js'

/** One path segment's worth of sanity: a build has short names, and no NUL reaches the file system. */
const ConsolePath = Type.Object({ '*': Type.String({ maxLength: 512, pattern: '^[^\\u0000\\\\]*$' }) })

/**
 * The web console (packages/console, built with Vite) as static files under /app. Hashed assets
 * are cached as immutable (RFC 8246); index.html is revalidated so a new build is picked up.
 * Its Content-Security-Policy is set with the other security headers (src/plugins/security-headers.ts).
 * Hidden from the OpenAPI document: it is a web page, not part of the API.
 */
export const consoleRoutes: FastifyPluginAsyncTypebox<{ dir: string }> = async (app, { dir }) => {
  const send = async (relative: string, reply: FastifyReply) => {
    const found = await resolveConsoleFile(dir, relative)
    if (!found) {
      if (!(await consoleBuilt(dir))) {
        throw new DependencyUnavailableError(
          'The web console is not built: run `npm run build:console` (npm ci and npm start build it), then reload /app',
        )
      }
      throw new NotFoundError('No such file in the web console')
    }
    reply.header('content-type', found.mediaType)
    reply.header('content-length', found.size)
    reply.header('cache-control', found.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    return reply.send(createReadStream(found.file))
  }
  app.get(CONSOLE_PREFIX, { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(`${CONSOLE_PREFIX}/`, 301),
  )
  app.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true, params: ConsolePath } }, async (request, reply) =>
    send(request.params['*'], reply),
  )
}
