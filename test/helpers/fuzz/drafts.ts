import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { JSON_LIMITS } from '../../../src/json-limits.js'
import {
  atFreeFormLimits,
  deepNest,
  HOSTILE_TEXT,
  hostileNumber,
  hostileString,
  pastFreeFormLimits,
  POLLUTION_MARKER,
  RawJson,
  stringOfCodePoints,
  toJsonText,
  UNICODE_EDGES,
  wellFormed,
  withKey,
} from './hostile-values.js'
import { multipartHostile, multipartInvalid } from './multipart-drafts.js'
import { seg, type AuthDraft, type BodyDraft, type Draft, type FuzzContext, type Segment } from './request-model.js'
import type { Target } from './route-targets.js'
import {
  boundaryValues,
  cloneJson,
  freeFormSlots,
  mutateAt,
  slotsOf,
  typesOf,
  valueMutations,
  type SchemaNode,
} from './schema-samples.js'

/**
 * The request generators: `invalidDrafts` (a valid baseline with one or two parts made hostile,
 * meant to be refused) and `hostileValidDrafts` (values the schemas accept but that have broken
 * services before). What a draft becomes on the wire, and whether the app must refuse it, is
 * request-model.ts.
 */

const JSON_TYPE = 'application/json'
const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'text/html',
  'application/octet-stream',
  'image/png',
  'application/jsonx',
  'text/json',
  'application/ld+json',
  '',
]
const BAD_ENCODINGS = ['%', '%zz', '%ED%A0%80', '%C0%AF', '%FF', 'a%2', '%E2%82']
const MALFORMED_JSON = [
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  '[1,]',
  "{'a':1}",
  '{"a":1}}',
  '{"a":1} trailing',
  'undefined',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":01}',
  '{"a":"\u0001"}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '\ufeff{}',
  '{"a":1 /* comment */}',
  '\u0000',
  '['.repeat(100_000),
  '{"a":"' + 'x'.repeat(1000),
]

/** Bodies that are valid JSON but poison a prototype (Fastify refuses them: onProtoPoisoning/onConstructorPoisoning 'error'). */
const POISONED_JSON = [
  `{"__proto__":{"${POLLUTION_MARKER}":true}}`,
  `{"\\u005f_proto__":{"${POLLUTION_MARKER}":true}}`,
  `{"constructor":{"prototype":{"${POLLUTION_MARKER}":true}}}`,
  `{"a":[{"b":{"__proto__":{"${POLLUTION_MARKER}":true}}}]}`,
  `{"a":{"constructor":{"prototype":{"${POLLUTION_MARKER}":true}}}}`,
]

const pick = <T>(items: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...items)

const EXTREME_DATES = [
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59.999999999-23:59',
  '0000-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '2016-12-31T23:59:60Z',
  '2030-01-01T00:00:00+14:00',
  '2030-01-01T00:00:00+01',
  '2030-01-01 00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '2030-01-01t00:00:00z',
  '2030-01-01T00:00:00.123456789012Z',
  '2100-02-28T00:00:00Z',
  '9999-12-31',
  '0000-01-01',
  '2024-02-29',
]

/** Hostile text for a path segment, decoded (the builder percent-encodes it). */
const segmentText: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  pick(['a'.repeat(4097), 'a'.repeat(5000), stringOfCodePoints(1500, '\u{1F600}')]),
)

function paramVariants(
  target: Target,
  name: string,
  ctx: FuzzContext,
): fc.Arbitrary<{ segment: Segment; label: string }> {
  const sub = (target.schemas.params?.properties as Record<string, SchemaNode> | undefined)?.[name]
  const options: Array<fc.Arbitrary<{ segment: Segment; label: string }>> = [
    segmentText.map((v) => ({ segment: seg(v), label: `hostile :${name}` })),
    pick(BAD_ENCODINGS).map((raw) => ({ segment: { raw }, label: `bad percent-encoding in :${name}` })),
  ]
  const bounds = sub && boundaryValues(sub)
  if (bounds)
    options.push(
      bounds
        .filter((v): v is string => typeof v === 'string' && v.length <= 10_000)
        .map((v) => ({ segment: seg(v), label: `boundary :${name}` })),
    )
  if (/did$/i.test(name)) {
    options.push(
      pick([ctx.strangerDid, `${ctx.ownerDid}x`, ctx.ownerDid.toUpperCase(), ctx.ownerDid.slice(0, -1)]).map((v) => ({
        segment: seg(v),
        label: `other DID in :${name}`,
      })),
    )
  }
  return fc.oneof(...options)
}

/** Spellings of the owner's DID that normalize to it (DID Core §3.2 URL parts, percent-encoding, case of the method). */
function ownerDidSpellings(ctx: FuzzContext): string[] {
  const did = ctx.ownerDid
  return [
    did,
    encodeURIComponent(did),
    encodeURIComponent(encodeURIComponent(did)),
    `DID:KEY:${did.slice(8)}`,
    ` ${did} `,
    `${did}#key-1`,
    `${did}?service=x`,
    `${did}/path/..`,
    `${did}#\u0000`,
    `${did}#${'\u{1F600}'.repeat(3)}`,
  ]
}

function queryVariants(target: Target): fc.Arbitrary<{ query: Record<string, unknown>; label: string }> | undefined {
  const schema = target.schemas.querystring
  const props = (schema?.properties ?? {}) as Record<string, SchemaNode>
  const base = target.base.query
  const options: Array<fc.Arbitrary<{ query: Record<string, unknown>; label: string }>> = [
    fc
      .tuple(pick(['__proto__', 'constructor', 'toString', 'a[b]', 'a.b', '', 'x'.repeat(300)]), hostileString)
      .map(([k, v]) => ({
        query: withKey(cloneJson({ ...base }), k, wellFormed(v)),
        label: `unknown query key ${JSON.stringify(k)}`,
      })),
  ]
  for (const [name, sub] of Object.entries(props)) {
    const types = typesOf(sub)
    const wrong: string[] =
      types.includes('integer') || types.includes('number')
        ? [
            'abc',
            '1.5',
            '-0',
            '',
            '0',
            '-1',
            '1e3',
            '1e309',
            'NaN',
            'Infinity',
            '0x10',
            ' 5',
            '5 ',
            '１２',
            '9'.repeat(400),
          ]
        : types.includes('boolean')
          ? ['yes', 'TRUE', '2', '', 'null', 'on']
          : ['', ...HOSTILE_TEXT.slice(0, 30), 'x'.repeat(Number(sub.maxLength ?? 100) + 1)]
    options.push(
      pick(wrong).map((v) => ({
        query: { ...base, [name]: wellFormed(v) },
        label: `query ${name}=${JSON.stringify(v).slice(0, 30)}`,
      })),
    )
    options.push(
      fc.tuple(hostileString, hostileString).map(([a, b]) => ({
        query: { ...base, [name]: [wellFormed(a), wellFormed(b)] },
        label: `query ${name} twice`,
      })),
    )
    options.push(
      hostileString.map((v) => ({ query: { ...base, [name]: wellFormed(v) }, label: `hostile query ${name}` })),
    )
  }
  return options.length ? fc.oneof(...options) : undefined
}

/** Bodies built to break the JSON layer or the schema (every one is classified before it is sent). */
function bodyVariants(target: Target): fc.Arbitrary<{ body: BodyDraft; label: string }> {
  const base = target.base.body
  const baseText = base === undefined ? '{}' : toJsonText(base)
  const text =
    (label: string) =>
    (t: string | Buffer, contentType: string | undefined = JSON_TYPE) => ({
      body: { kind: 'text', text: t, contentType, label } as BodyDraft,
      label,
    })
  const options: Array<fc.WeightedArbitrary<{ body: BodyDraft; label: string }>> = [
    { weight: 1, arbitrary: pick(MALFORMED_JSON).map((t) => text('malformed JSON')(t)) },
    { weight: 1, arbitrary: pick(POISONED_JSON).map((t) => text('prototype poisoning')(t)) },
    { weight: 1, arbitrary: fc.constant(text('empty JSON body')('')) },
    {
      weight: 1,
      arbitrary: pick(WRONG_CONTENT_TYPES).map((ct) => text(`content-type ${JSON.stringify(ct)}`)(baseText, ct)),
    },
    {
      weight: 1,
      arbitrary: fc.constant(text('invalid UTF-8')(Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0xc3, 0x28]))),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(target.bodyLimit + 1, target.bodyLimit + 100_000)
        .map((size) => text(`body of ${size} bytes`)(`{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`)),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(5_000, 50_000)
        .map((depth) => text(`${depth}-deep arrays`)(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
    },
  ]
  if (target.schemas.body) {
    options.push({
      weight: 10,
      arbitrary: valueMutations(target.schemas.body, base).map(({ value, label }) => ({
        body: { kind: 'json', value, contentType: JSON_TYPE } as BodyDraft,
        label,
      })),
    })
  }
  return fc.oneof(...options)
}

function authVariants(target: Target, ctx: FuzzContext): fc.Arbitrary<{ auth: AuthDraft; label: string }> | undefined {
  if (target.access === 'admin') {
    return pick([undefined, '', 'wrong', `${ctx.adminKey} `, ctx.adminKey.toUpperCase(), '\u00e9'.repeat(10)]).map(
      (value) => ({ auth: { kind: 'admin-key', value } as AuthDraft, label: 'bad admin key' }),
    )
  }
  if (target.access === 'client') {
    // A session token is no VC API token.
    return pick([
      undefined,
      'Bearer',
      'Bearer garbage',
      `Bearer ${ctx.ownerToken}`,
      `Bearer ${ctx.vcApiToken}x`,
      `Basic ${ctx.vcApiToken}`,
    ]).map((value) => ({
      auth: (value === undefined ? { kind: 'none' } : { kind: 'authorization', value }) as AuthDraft,
      label: 'bad VC API token',
    }))
  }
  if (target.access !== 'user') return undefined
  const [h, p] = ctx.ownerToken.split('.')
  const noneAlg = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`
  return fc.oneof(
    fc.constant({ auth: { kind: 'none' } as AuthDraft, label: 'no token' }),
    pick([
      'Bearer',
      'Bearer ',
      'Bearer garbage',
      `Basic ${ctx.ownerToken}`,
      `Bearer ${ctx.ownerToken}x`,
      `Bearer ${h}.${p}.AAAA`,
      `Bearer ${noneAlg}`,
      `Bearer ${'a'.repeat(8000)}`,
      `bearer  ${ctx.ownerToken} extra`,
    ]).map((value) => ({ auth: { kind: 'authorization', value } as AuthDraft, label: 'bad token' })),
    fc
      .oneof(hostileString.map(wellFormed).filter(isHeaderSafe), pick([ctx.strangerDid, `${ctx.ownerDid}x`]))
      .map((value) => ({ auth: { kind: 'x-user-did', value } as AuthDraft, label: 'X-User-DID not the token DID' })),
  )
}

const isHeaderSafe = (v: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)

export function baseDraft(target: Target): Omit<Draft, 'labels'> {
  const params: Record<string, Segment> = {}
  for (const [k, v] of Object.entries(target.base.params)) params[k] = seg(v)
  const body: BodyDraft =
    target.takesBody && target.base.body !== undefined
      ? { kind: 'json', value: target.base.body, contentType: JSON_TYPE }
      : { kind: 'none' }
  return { target, params, query: target.base.query, body, auth: { kind: 'owner' } }
}

/**
 * Requests meant to be refused: one or two parts of a valid baseline replaced by a hostile
 * variant. Most are invalid by construction; `classify` has the last word.
 */
export function invalidDrafts(target: Target, ctx: FuzzContext): fc.Arbitrary<Draft> {
  const parts: Array<{ weight: number; arb: fc.Arbitrary<Partial<Draft> & { label: string }> }> = []
  if (target.paramNames.length) {
    parts.push({
      weight: 2,
      arb: fc.constantFrom(...target.paramNames).chain((name) =>
        paramVariants(target, name, ctx).map(({ segment, label }) => ({
          params: { ...baseDraft(target).params, [name]: segment },
          label,
        })),
      ),
    })
  }
  const query = queryVariants(target)
  if (query && target.schemas.querystring) parts.push({ weight: 2, arb: query })
  if (target.takesBody)
    parts.push({
      weight: 6,
      arb: target.multipart ? multipartInvalid(target, WRONG_CONTENT_TYPES) : bodyVariants(target),
    })
  const auth = authVariants(target, ctx)
  if (auth) parts.push({ weight: 1, arb: auth })
  // A public read without schemas (health, JWKS, docs) refuses nothing: it gets the noise.
  if (!target.refusable || !parts.length) return noiseDrafts(target)
  const one = fc.oneof(...parts.map((p) => ({ weight: p.weight, arbitrary: p.arb })))
  return fc.tuple(one, fc.option(one, { freq: 4 })).map(([a, b]) => {
    const draft = { ...baseDraft(target), ...(b ?? {}), ...a }
    return { ...draft, labels: b ? [a.label, b.label] : [a.label] }
  })
}

/**
 * Requests the schemas accept but that carry hostile values: unicode edge cases, NUL, prototype
 * keys and deep nesting in free-form objects, DID spellings, foreign ids. Anything but a 5xx.
 */
export function hostileValidDrafts(target: Target, ctx: FuzzContext): fc.Arbitrary<Draft> {
  const options: Array<fc.Arbitrary<Draft>> = []
  const base = baseDraft(target)
  for (const name of target.paramNames) {
    const values =
      name === 'did' && target.access === 'user'
        ? pick(ownerDidSpellings(ctx))
        : fc.oneof(hostileString, pick(UNICODE_EDGES))
    options.push(
      values.map((v) => ({ ...base, params: { ...base.params, [name]: seg(v) }, labels: [`hostile valid :${name}`] })),
    )
  }
  const body = target.schemas.body
  if (target.takesBody && body && !target.multipart) {
    const slots = slotsOf(body, target.base.body).filter((s) => s.path.length > 0)
    const strings = slots.filter((s) => typesOf(s.schema).includes('string'))
    const numbers = slots.filter((s) => typesOf(s.schema).some((t) => t === 'integer' || t === 'number'))
    const objects = slots.filter((s) => typesOf(s.schema).includes('object') && !s.schema.properties)
    const arrays = slots.filter((s) => typesOf(s.schema).includes('array'))
    const set = (slot: { path: Array<string | number> }, to: unknown, label: string): Draft => ({
      ...base,
      body: { kind: 'json', value: mutateAt(target.base.body, slot.path, { kind: 'set', to }), contentType: JSON_TYPE },
      labels: [label],
    })
    if (strings.length) {
      options.push(
        fc
          .tuple(fc.constantFrom(...strings), hostileString)
          .map(([slot, v]) => set(slot, v, `hostile ${slot.path.join('.')}`)),
      )
      // Dates the formats accept but calendars and Date objects may not (leap second, year 9999, offsets).
      const dated = strings.filter((s) =>
        /date/.test(
          String(s.schema.format ?? (s.schema.anyOf as SchemaNode[] | undefined)?.map((b) => b.format).join(' ')),
        ),
      )
      if (dated.length)
        options.push(
          fc
            .tuple(fc.constantFrom(...dated), pick(EXTREME_DATES))
            .map(([slot, v]) => set(slot, v, `extreme date at ${slot.path.join('.')}`)),
        )
    }
    if (arrays.length) {
      // Lists of hostile text (the baseline's lists are often empty, so their items get no slot).
      options.push(
        fc
          .tuple(fc.constantFrom(...arrays), fc.array(hostileString, { minLength: 1, maxLength: 4 }))
          .map(([slot, v]) => set(slot, v, `hostile items in ${slot.path.join('.')}`)),
      )
    }
    if (numbers.length) {
      // Numbers within the schema's bounds (or unbounded) that overflow columns, dates and counters.
      options.push(
        fc
          .tuple(
            fc.constantFrom(...numbers),
            fc.oneof(hostileNumber, pick([2 ** 31, 2 ** 31 - 1, 2 ** 53, 2 ** 63, 1e21, 1e308, -0, 0.1 + 0.2])),
          )
          .map(([slot, v]) => set(slot, v, `extreme number at ${slot.path.join('.')}`)),
      )
    }
    if (objects.length) {
      // Nesting and sizes up to the free-form limits (JSON_LIMITS), not past them: those are refused.
      const nested = JSON_LIMITS.freeFormDepth - 1
      const freeForm = fc.oneof(
        fc.dictionary(
          fc.oneof(hostileString, pick(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'length', ''])),
          fc.oneof(
            hostileString,
            fc.constant(deepNest(nested, 'object')),
            fc.constant(deepNest(nested, 'array')),
            fc.constant(new RawJson('1e309')),
            fc.constant(null),
          ),
          { maxKeys: 5 },
        ),
        pick(atFreeFormLimits()),
        fc.constant(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'x'.repeat(1000)]))),
      )
      options.push(
        fc
          .tuple(fc.constantFrom(...objects), freeForm)
          .map(([slot, v]) => set(slot, v, `hostile object at ${slot.path.join('.')}`)),
      )
    }
  }
  if (target.takesBody && target.multipart)
    options.push(multipartHostile(target).map(({ body: b, label }) => ({ ...base, body: b, labels: [label] })))
  const query = queryVariants(target)
  if (query) options.push(query.map(({ query: q, label }) => ({ ...base, query: q, labels: [label] })))
  if (!target.takesBody) options.push(noiseDrafts(target))
  return fc.oneof(...options)
}

const HEADER_NOISE: Record<string, readonly string[]> = {
  accept: ['*/*', 'text/html', 'application/xml;q=0.9, */*;q=0', '\x7f', 'a/b/c', ';;;', 'x'.repeat(4000)],
  'accept-encoding': ['gzip, deflate, br', 'identity;q=0', '*;q=0', 'zstd', 'gzip;q=NaN'],
  range: [
    'bytes=0-0',
    'bytes=999999999-',
    'bytes=-1',
    'bytes=5-1',
    'bytes=0-1,0-1,0-1,0-1,0-1,0-1,0-1,0-1',
    'items=0-1',
    'bytes=',
  ],
  'if-none-match': ['*', '"x"', 'W/"\u0000"', ','.repeat(200)],
  'if-modified-since': ['Thu, 01 Jan 1970 00:00:00 GMT', 'not a date', '9999-99-99'],
  'x-request-id': ['../../x', 'a'.repeat(65), 'ok-id', '\x01'],
  'x-forwarded-for': ['1.1.1.1, 2.2.2.2', 'not-an-ip', '::1'],
  cookie: ['a=b', '__proto__=x', '=;=;='],
  'content-type': ['application/json', 'text/plain', 'multipart/form-data'],
  // Taken by the creating POSTs (docs/idempotency.md); elsewhere it must be ignored.
  'idempotency-key': [
    '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    '""',
    '"unterminated',
    '__proto__',
    '"a", "b"',
    'k'.repeat(300),
    '\x7f',
  ],
}

/** A request to a route with nothing to refuse, surrounded by hostile query keys and headers. */
function noiseDrafts(target: Target): fc.Arbitrary<Draft> {
  const header = fc
    .constantFrom(...Object.keys(HEADER_NOISE))
    .chain((name) => pick(HEADER_NOISE[name]!.filter(isHeaderSafe)).map((value) => [name, value] as const))
  const segments = target.paramNames.length
    ? fc.dictionary(pick(target.paramNames), segmentText.map(seg), { maxKeys: 1 })
    : fc.constant({})
  return fc
    .tuple(
      fc.dictionary(
        fc.oneof(
          pick(['__proto__', 'constructor', 'toString', 'format', 'callback', 'a[b]']),
          fc.string({ maxLength: 8 }),
        ),
        hostileString.map(wellFormed),
        { maxKeys: 3 },
      ),
      fc.array(header, { maxLength: 3 }),
      segments,
    )
    .map(([query, headers, params]) => ({
      ...baseDraft(target),
      params: { ...baseDraft(target).params, ...params },
      query,
      headers: Object.fromEntries(headers),
      labels: [
        `noise: query ${Object.keys(query).join(',') || '-'}; headers ${headers.map(([n]) => n).join(',') || '-'}`,
      ],
    }))
}

/**
 * For every free-form field of the route, a request carrying a value just past each JSON limit
 * (pastFreeFormLimits): the app must refuse each with a 400 naming `field` (or a 413 where the
 * value cannot fit the route's body limit at all).
 */
export function freeFormLimitDrafts(target: Target): Array<{ draft: Draft; field: string }> {
  const body = target.schemas.body
  if (!target.takesBody || target.multipart || !body) return []
  return freeFormSlots(body, target.base.body).flatMap((slot) =>
    pastFreeFormLimits().map(({ value, label }) => ({
      field: slot.path.join('/'),
      draft: {
        ...baseDraft(target),
        body: {
          kind: 'json',
          value: mutateAt(target.base.body, slot.path, { kind: 'set', to: value }),
          contentType: JSON_TYPE,
        },
        labels: [`${label} at ${slot.path.join('.')}`],
      },
    })),
  )
}
