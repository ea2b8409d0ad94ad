/**
 * The body and the answer of a route as the generated OpenAPI types describe them, so the issuer
 * and verifier helpers take and return exactly what the service does (a changed route schema,
 * regenerated, changes them too).
 */
import type { paths } from './generated/schema.js'

type Method = 'get' | 'post' | 'put' | 'delete'

/** The JSON body of `method path`. */
export type RouteBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } }
}
  ? B
  : never

/** The JSON answer of `method path` with status `S`. */
export type RouteAnswer<P extends keyof paths, M extends Method, S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer R } } }
}
  ? R
  : never
