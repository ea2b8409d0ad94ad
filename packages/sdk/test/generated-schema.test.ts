/**
 * The SDK's types follow the service: the OpenAPI document is read from the app as it is now and
 * turned into TypeScript again; the committed packages/sdk/src/generated/schema.ts must be that text.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { generateSdkSchema, KEYED_ROUTES_FILE, SCHEMA_FILE } from '../../../scripts/lib/sdk-schema.js'

describe('generated OpenAPI types', () => {
  it('packages/sdk/src/generated/schema.ts is what `npm run sdk:generate` writes today', async () => {
    const [committed, committedKeyed, { schema: fresh, keyedRoutes }] = await Promise.all([
      readFile(SCHEMA_FILE, 'utf8'),
      readFile(KEYED_ROUTES_FILE, 'utf8'),
      generateSdkSchema(),
    ])
    assert.ok(
      committed === fresh,
      'packages/sdk/src/generated/schema.ts is stale: run `npm run sdk:generate` and commit it',
    )
    assert.ok(
      committedKeyed === keyedRoutes,
      'packages/sdk/src/generated/keyed-routes.ts is stale: run `npm run sdk:generate` and commit it',
    )
    assert.ok(keyedRoutes.includes("'/api/issuer/{did}/issue'"), 'the issue route takes an Idempotency-Key')
    // The routes the flows use are in it (an empty document would also be "fresh").
    for (const route of [
      '"/api/auth/verify-challenge"',
      '"/api/wallet/{did}/offers/accept/{session_id}"',
      '"/api/wallet/presentation-requests/{request_id}/approve"',
    ]) {
      assert.ok(fresh.includes(route), route)
    }
  })
})
