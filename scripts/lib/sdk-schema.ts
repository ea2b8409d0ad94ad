/**
 * The SDK's types from the service's OpenAPI document: the app is built the way tests build it
 * (test/helpers/test-app.ts), its `/api/docs/json` read through `inject`, and openapi-typescript
 * turns it into `packages/sdk/src/generated/schema.ts`. Output is deterministic (alphabetized,
 * a fixed https base URL so the OpenID4VC routes are in the document) so a stale file shows up
 * as a difference (packages/sdk/test/generated-schema.test.ts).
 */
import path from 'node:path'
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'
import type { OpenAPI3 } from 'openapi-typescript'
import { createTestApp } from '../../test/helpers/test-app.js'

export const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../packages/sdk/src/generated/schema.ts')
export const KEYED_ROUTES_FILE = path.resolve(import.meta.dirname, '../../packages/sdk/src/generated/keyed-routes.ts')

const HEADER =
  "// Generated from the service's OpenAPI document (/api/docs/json): do not edit. Regenerate with `npm run sdk:generate`.\n"

/** The OpenAPI document the service publishes. */
export async function fetchOpenApiDocument(): Promise<OpenAPI3> {
  // https: the OpenID4VCI/VP routes are registered only for an https PUBLIC_BASE_URL.
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://service.example' } })
  try {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
    if (res.statusCode !== 200) throw new Error(`/api/docs/json answered ${res.statusCode}`)
    return res.json() as OpenAPI3
  } finally {
    await t.close()
  }
}

/** The text of `schema.ts` and `keyed-routes.ts` for the service as it is now. */
export async function generateSdkSchema(): Promise<{ schema: string; keyedRoutes: string }> {
  const doc = await fetchOpenApiDocument()
  const ast = await openapiTS(doc, { alphabetize: true, silent: true })
  return { schema: HEADER + COMMENT_HEADER + astToString(ast), keyedRoutes: keyedRoutesModule(doc) }
}

/** The POST paths that declare an Idempotency-Key header: the SDK sends a key and retries only there. */
function keyedRoutesModule(doc: OpenAPI3): string {
  const keyed = Object.entries(doc.paths ?? {})
    .filter(([, item]) => {
      const post = (item as { post?: { parameters?: Array<{ in?: string; name?: string }> } }).post
      return (post?.parameters ?? []).some((p) => p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key')
    })
    .map(([route]) => route)
    .sort()
  return `${HEADER}\n/** POST routes that take an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header), as OpenAPI path templates. */\nexport const KEYED_POST_ROUTES: readonly string[] = [\n${keyed.map((r) => `  '${r}',\n`).join('')}]\n`
}
