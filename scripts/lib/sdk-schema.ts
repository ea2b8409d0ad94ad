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

const HEADER = '// Generated from the service\'s OpenAPI document (/api/docs/json): do not edit. Regenerate with `npm run sdk:generate`.\n'

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

/** The text of `schema.ts` for the service as it is now. */
export async function generateSdkSchema(): Promise<string> {
  const ast = await openapiTS(await fetchOpenApiDocument(), { alphabetize: true, silent: true })
  return HEADER + COMMENT_HEADER + astToString(ast)
}
