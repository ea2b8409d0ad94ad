import type { FastifyInstance } from 'fastify'

/**
 * Lets the routes of one plugin scope read `application/x-www-form-urlencoded` bodies (OAuth 2.0
 * token requests, RFC 6749 §4.1.3 and §4.4.2; OpenID4VP responses, OID4VP 1.0 §8.2) as a flat
 * object of strings, a repeated name keeping its last value; the rest of the service stays JSON
 * and multipart.
 */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}

/**
 * Lets the routes of one plugin scope take a POST of any content type and ignore its body: a
 * request whose meaning is the POST itself (OID4VCI 1.0 §7.1, the nonce request), which clients
 * send bare, as an empty form (Sphereon's) or as empty JSON (the route's body limit still applies).
 */
export function ignoreBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined))
}
