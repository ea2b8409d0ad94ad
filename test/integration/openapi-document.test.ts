/**
 * The published OpenAPI document (/api/docs/json): a unique operationId on every operation, and the
 * main routes' examples (src/plugins/openapi-examples.ts), each valid against the schema it
 * illustrates, checked with Ajv (OpenAPI 3.0 schemas: `nullable`, `example` as annotations).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import { OPENAPI_EXAMPLES } from '../../src/plugins/openapi-examples.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// The document is walked by path and method: any, as JSON.parse gives it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

/** OpenAPI 3.0's `nullable: true` as JSON Schema: the type also admits null. */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema))
    if (key !== 'nullable' && key !== 'example' && !key.startsWith('x-')) out[key] = toJsonSchema(value)
  if ((schema as Json).nullable === true) return { anyOf: [out, { type: 'null' }] }
  return out
}

describe('OpenAPI document', () => {
  let t: TestApp
  let doc: Json
  before(async () => {
    // https: the OpenID4VCI/VP routes are registered only for an https PUBLIC_BASE_URL.
    t = await createTestApp({
      env: { PUBLIC_BASE_URL: 'https://service.example' },
      extraRoutes: (app) =>
        app.get(
          '/api/test-explicit/:id',
          {
            schema: {
              operationId: 'readTheTestThing',
              params: { type: 'object', properties: { id: { type: 'string' } } },
            },
          },
          async () => ({}),
        ),
    })
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
    assert.equal(res.statusCode, 200)
    doc = res.json()
  })
  after(async () => {
    await t?.close()
  })

  const operations = (): Array<{ route: string; operation: Json }> =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((m) => (item as Json)[m]).map((m) => ({
        route: `${m.toUpperCase()} ${path}`,
        operation: (item as Json)[m] as Json,
      })),
    )

  it('gives every operation a unique operationId, a route schema’s own one kept', () => {
    const all = operations()
    assert.ok(all.length > 100, `${all.length} operations`)
    const ids = new Map<string, string>()
    for (const { route, operation } of all) {
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z0-9]*$/, route)
      assert.equal(ids.get(operation.operationId), undefined, `${route} repeats ${operation.operationId}`)
      ids.set(operation.operationId, route)
    }
    assert.equal(ids.get('readTheTestThing'), 'GET /api/test-explicit/{id}')
    assert.equal(ids.get('postIssuerIssue'), 'POST /api/issuer/{did}/issue')
  })

  it('shows the examples on the main routes, each valid against its schema', () => {
    const ajv = new Ajv.default({ strict: false, allErrors: true })
    addFormats.default(ajv)
    const byRoute = new Map(operations().map(({ route, operation }) => [route, operation]))
    let requests = 0
    let responses = 0
    for (const [route, examples] of Object.entries(OPENAPI_EXAMPLES)) {
      const operation = byRoute.get(route)
      assert.ok(operation, `${route} is not in the document`)
      if (examples.request !== undefined) {
        const media: Json = operation.requestBody?.content?.['application/json']
        assert.deepEqual(media?.example, examples.request, `${route}: request example shown`)
        const validate = ajv.compile(toJsonSchema(media.schema) as object)
        assert.ok(validate(examples.request), `${route} request: ${ajv.errorsText(validate.errors)}`)
        requests++
      }
      for (const [status, example] of Object.entries(examples.responses ?? {})) {
        const media: Json = operation.responses?.[status]?.content?.['application/json']
        assert.deepEqual(media?.example, example, `${route} ${status}: response example shown`)
        const validate = ajv.compile(toJsonSchema(media.schema) as object)
        assert.ok(validate(example), `${route} ${status}: ${ajv.errorsText(validate.errors)}`)
        responses++
      }
    }
    assert.ok(requests >= 10 && responses >= 5, `${requests} request and ${responses} response examples`)
  })

  it('rejects an example that does not fit (the check can fail)', () => {
    const ajv = new Ajv.default({ strict: false })
    addFormats.default(ajv)
    const media = doc.paths['/api/auth/challenge'].post.requestBody.content['application/json']
    assert.equal(
      ajv.validate(toJsonSchema(media.schema) as object, { did: 'did:key:z6Mk', purpose: 'everything' }),
      false,
    )
  })
})
