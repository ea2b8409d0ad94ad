import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { didFromPathSegment } from '../modules/did/did-normalize.js'

/** A path parameter named `did` or `<role>_did` holds a DID. */
const DID_PARAM = /^:(did|[a-z]+_did)$/

/**
 * Path parameters holding a DID are read from the raw path by didFromPathSegment instead of the
 * router's decoding, which cannot tell did:web's `%3A` port (did:web §3.2) from an encoded `:`:
 * `did:web:example.com%3A8443` must stay that DID, not become `did:web:example.com:8443`.
 * Runs onRequest before the auth plugin, whose DID binding check reads the same parameters.
 */
async function didPathParamsPlugin(app: FastifyInstance): Promise<void> {
  // Route pattern -> [parameter name, position of its segment counted from the path's end]:
  // from the end, because an absolute-form request target (`GET http://host/api/...`) keeps its
  // origin in request.url.
  const positions = new Map<string, Array<[string, number]>>()
  const didParams = (pattern: string): Array<[string, number]> => {
    let found = positions.get(pattern)
    if (!found) {
      const segments = pattern.split('/')
      found = segments.flatMap((segment, index): Array<[string, number]> => {
        const match = DID_PARAM.exec(segment)
        return match ? [[match[1]!, segments.length - index]] : []
      })
      positions.set(pattern, found)
    }
    return found
  }

  app.addHook('onRequest', async (request) => {
    const pattern = request.routeOptions.url
    if (pattern === undefined) return
    const wanted = didParams(pattern)
    if (wanted.length === 0) return
    const segments = request.url.split(/[?#]/, 1)[0]!.split('/')
    const params = request.params as Record<string, string>
    for (const [name, fromEnd] of wanted) {
      const segment = segments.at(-fromEnd)
      if (segment !== undefined) params[name] = didFromPathSegment(segment)
    }
  })
}

export default fp(didPathParamsPlugin, { name: 'did-path-params' })
