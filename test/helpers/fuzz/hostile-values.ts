import fc from 'fast-check'
import { JSON_LIMITS } from '../../../src/json-limits.js'

/**
 * The raw material of hostile input: strings, numbers and object keys that have broken parsers,
 * databases and templating in real services. Used both to make a request invalid (a value of the
 * wrong type or shape) and, where the schema allows them, as valid-but-hostile values.
 */

/** A JSON token written as is: numbers JSON.stringify cannot produce (1e309 parses to Infinity). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Serializes like JSON.stringify, but keeps RawJson tokens and own `__proto__` keys as they are. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${toJsonText((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** An object with `key` as an own, enumerable property, even when the key is `__proto__`. */
export function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  return target
}

/** The property a prototype-pollution payload tries to plant on Object.prototype. */
export const POLLUTION_MARKER = 'fuzzPolluted'

export const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
] as const

const LONE_HIGH = '\ud800'
const LONE_LOW = '\udfff'

/** Unicode that trips length checks, normalization, bidi rendering and UTF-8 encoders. */
export const UNICODE_EDGES: readonly string[] = [
  '\u0000',
  'a\u0000b',
  `x${LONE_HIGH}`,
  `${LONE_LOW}x`,
  `${LONE_LOW}${LONE_HIGH}`,
  '\u202eevil\u202c', // right-to-left override
  '\u200f\u200e\u2066x\u2069',
  'e\u0301\u0301\u0301', // combining marks
  'Z\u0351\u0360\u0361\u035b\u035c\u0362\u0489a\u0335\u0334l\u0336g\u0337o\u0338',
  '\u{1F469}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466}', // one grapheme, seven code points
  '\u{1F600}',
  '\ufeffbom',
  '\uffff\ufffe',
  '\u2028\u2029',
  '\u00a0\u3000\u200b',
  'ǅǈǋ',
  'ｄｉｄ：ｋｅｙ',
  'İı',
  '\u0130'.repeat(10),
  '\t\r\n\v\f',
  '\u001b[31mred\u001b[0m',
]

/** Strings aimed at paths, SQL, templates, DIDs, URLs and number parsing. */
export const HOSTILE_TEXT: readonly string[] = [
  '',
  ' ',
  '   leading and trailing   ',
  '..',
  '.',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '%',
  '%zz',
  '%ED%A0%80',
  "' OR '1'='1' --",
  '"; drop table users; --',
  '\\',
  '\\u0000',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  'http://localhost:1/',
  'did:',
  'did:key:',
  'did:key:z',
  'did:web:localhost%3A1',
  'did:web:127.0.0.1',
  'DID:KEY:Z6MK',
  'did:example:123#frag?q=1/path',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '1e309',
  '0x1f',
  '1.5',
  '-1',
  '9007199254740993',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  '0000-00-00',
  '9999-99-99T99:99:99Z',
  '2026-01-01T00:00:00',
  '+275760-09-13T00:00:00.001Z',
  ...PROTO_KEYS,
  ...UNICODE_EDGES,
]

/** A hostile string: the corpus, or arbitrary code units (lone surrogates included), or graphemes. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...UNICODE_EDGES), fc.integer({ min: 2, max: 300 }))
      .map(([s, n]) => s.repeat(n)),
  },
)

/** Numbers at and past every boundary, including tokens JSON.stringify cannot write. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    0,
    -1,
    1.5,
    -0.5,
    2 ** 31,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    1e308,
    -1e308,
    Number.MIN_VALUE,
    Number.EPSILON,
  ),
  fc.constantFrom(
    new RawJson('1e309'),
    new RawJson('-1e309'),
    new RawJson('-0'),
    new RawJson('123456789012345678901234567890'),
    new RawJson('1e-400'),
    new RawJson('0.0000000000000000000001'),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
)

/** `depth` levels of arrays or objects around a leaf: parsers and recursive walkers meet it. */
export function deepNest(depth: number, kind: 'array' | 'object', leaf: unknown = 'x'): unknown {
  let value = leaf
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value }
  return value
}

/** A value of any JSON type other than `avoid` (a JSON Schema type name), hostile where possible. */
export function wrongTypeValue(avoid: readonly string[]): fc.Arbitrary<unknown> {
  const options: Array<{ type: string; arbitrary: fc.Arbitrary<unknown> }> = [
    { type: 'string', arbitrary: hostileString },
    { type: 'number', arbitrary: hostileNumber },
    { type: 'boolean', arbitrary: fc.boolean() },
    { type: 'null', arbitrary: fc.constant(null) },
    {
      type: 'array',
      arbitrary: fc.oneof(
        fc.constant([]),
        fc.array(hostileString, { maxLength: 3 }),
        fc.constant(deepNest(200, 'array')),
      ),
    },
    {
      type: 'object',
      arbitrary: fc.oneof(
        fc.constant({}),
        fc.constant(deepNest(200, 'object')),
        fc.constant({ length: 1e9 }),
        fc.dictionary(fc.string({ maxLength: 5 }), hostileString, { maxKeys: 3 }),
      ),
    },
  ]
  const usable = options.filter((o) => !avoid.includes(o.type) && !(o.type === 'number' && avoid.includes('integer')))
  return fc.oneof(...usable.map((o) => o.arbitrary))
}

/** A string of exactly `codePoints` code points (Ajv counts code points, not UTF-16 units). */
export function stringOfCodePoints(codePoints: number, unit: string): string {
  const chars = [...unit]
  let out = ''
  for (let i = 0; i < codePoints; i++) out += chars[i % chars.length]
  return out
}

/** Replaces lone surrogates, which cannot be percent-encoded (encodeURIComponent throws). */
export const wellFormed = (s: string): string =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

/** Nesting far past every limit, and past what the embedded database's thread can hand back to the event loop. */
export const VERY_DEEP = 2_000

/**
 * Values for a field of free-form JSON (an object) just past each of JSON_LIMITS: nesting (the
 * field's own limit, the body's, and far past both), keys and items, string and key length.
 */
export function pastFreeFormLimits(): ReadonlyArray<{ value: Record<string, unknown>; label: string }> {
  const { documentDepth, freeFormDepth, freeFormMembers, freeFormStringLength } = JSON_LIMITS
  return (pastLimits ??= [
    { label: `${freeFormDepth + 1} levels of objects`, value: { a: deepNest(freeFormDepth, 'object') } },
    { label: `${freeFormDepth + 1} levels of arrays`, value: { a: deepNest(freeFormDepth, 'array') } },
    {
      label: `${documentDepth + 1} levels (past the whole body's limit)`,
      value: { a: deepNest(documentDepth, 'array') },
    },
    { label: `${VERY_DEEP} levels`, value: { a: deepNest(VERY_DEEP, 'object') } },
    { label: `${freeFormMembers + 1} items`, value: { a: Array.from({ length: freeFormMembers }, () => 0) } },
    {
      label: `${freeFormMembers + 1} keys`,
      value: { a: Object.fromEntries(Array.from({ length: freeFormMembers }, (_, i) => [`k${i}`, 0])) },
    },
    { label: `a string of ${freeFormStringLength + 1} characters`, value: { a: 'x'.repeat(freeFormStringLength + 1) } },
    {
      label: `a key of ${freeFormStringLength + 1} characters`,
      value: { a: { ['k'.repeat(freeFormStringLength + 1)]: 1 } },
    },
  ])
}
let pastLimits: Array<{ value: Record<string, unknown>; label: string }> | undefined

/** Free-form values right at the limits: hostile, but to be accepted. */
export function atFreeFormLimits(): Array<Record<string, unknown>> {
  const { freeFormDepth, freeFormMembers } = JSON_LIMITS
  return [
    { a: deepNest(freeFormDepth - 1, 'object') },
    { a: deepNest(freeFormDepth - 1, 'array') },
    { a: Array.from({ length: freeFormMembers - 1 }, () => 0) },
  ]
}
