import type { ValidateFunction } from 'ajv'
import fc from 'fast-check'
import { OptionalKind } from '@sinclair/typebox'
import { FREE_FORM_KEYWORD } from '../../../src/json-limits.js'
import { createValidators } from '../../../src/plugins/validation.js'
import {
  deepNest,
  hostileNumber,
  hostileString,
  pastFreeFormLimits,
  POLLUTION_MARKER,
  RawJson,
  stringOfCodePoints,
  withKey,
  wrongTypeValue,
} from './hostile-values.js'

// Hostile samples for every TypeBox keyword the routes use. Over 300 lines: one generator per
// keyword, which the fuzz tests need together to cover every route schema.

/** A JSON Schema node as the route table holds it (TypeBox output: plain JSON plus symbols). */
export type SchemaNode = Record<string, unknown>

type AjvInstance = ReturnType<typeof createValidators>['body']

export type Check = (data: unknown) => boolean

/**
 * The body check as the app applies it: a body declared Type.Optional may be absent or null.
 * Takes a freshly parsed body (Ajv removes and defaults in place; a 50,000-deep body is not copied).
 */
export function bodyCheck(ajv: AjvInstance, schema: SchemaNode): Check {
  const validate = ajv.compile(schema)
  const optional = (schema as Record<symbol, unknown>)[OptionalKind] === 'Optional'
  return (data) => (optional && (data === undefined || data === null)) || validate(data)
}

export function textCheck(ajv: AjvInstance, schema: SchemaNode): Check {
  const validate = ajv.compile(schema)
  return (data) => validate(cloneJson(data))
}

/** Deep copy that keeps RawJson tokens and own `__proto__` keys (Ajv mutates what it checks). */
export function cloneJson<T>(value: T): T {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(cloneJson) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) withKey(out, key, cloneJson((value as Record<string, unknown>)[key]))
  return out as T
}

/** The JSON Schema types a node accepts (through anyOf, const and enum too). */
export function typesOf(schema: SchemaNode): string[] {
  if (Array.isArray(schema.anyOf)) return [...new Set((schema.anyOf as SchemaNode[]).flatMap(typesOf))]
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type as string[]
  if ('const' in schema) return [schema.const === null ? 'null' : typeof schema.const]
  return []
}

const subCheckCache = new WeakMap<SchemaNode, ValidateFunction>()
function fits(ajv: AjvInstance, schema: SchemaNode, value: unknown): boolean {
  let validate = subCheckCache.get(schema)
  if (!validate) subCheckCache.set(schema, (validate = ajv.compile(schema)))
  return validate(cloneJson(value))
}

const STRING_CANDIDATES = [
  'fuzz',
  'Fuzz value',
  'fuzz@example.com',
  'https://example.com/fuzz',
  '2030-01-01T00:00:00Z',
  '2030-01-01',
  'ab'.repeat(32),
  'aa.bb.cc',
  'text/plain',
  'fuzz-0123456789',
]

/**
 * A value the schema accepts, built from the schema alone (and `hints`: property name -> a
 * meaningful value such as a seeded record id, used when it fits). Undefined when none is found.
 */
export function validSample(
  ajv: AjvInstance,
  schema: SchemaNode,
  hints: Record<string, unknown> = {},
  name?: string,
): unknown {
  const hinted = name === undefined ? undefined : hints[name]
  if (hinted !== undefined && fits(ajv, schema, hinted)) return cloneJson(hinted)
  const candidates = sampleCandidates(ajv, schema, hints)
  return candidates.find((c) => fits(ajv, schema, c))
}

function sampleCandidates(ajv: AjvInstance, schema: SchemaNode, hints: Record<string, unknown>): unknown[] {
  if ('const' in schema) return [schema.const]
  if (Array.isArray(schema.enum)) return schema.enum
  if ('default' in schema)
    return [
      schema.default,
      ...sampleCandidates(ajv, { ...schema, default: undefined, [OptionalKind]: undefined }, hints).slice(0, 3),
    ]
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as SchemaNode[]).map((s) => validSample(ajv, s, hints))
  const type = typesOf(schema)[0]
  switch (type) {
    case 'string': {
      const min = Number(schema.minLength ?? 0)
      return STRING_CANDIDATES.map((c) => (c.length >= min ? c : c + 'x'.repeat(min - c.length)))
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : undefined
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined
      return [min ?? (max !== undefined ? Math.min(max, 1) : 1), max ?? 1, 1]
    }
    case 'boolean':
      return [true]
    case 'null':
      return [null]
    case 'array': {
      const item = schema.items ? validSample(ajv, schema.items as SchemaNode, hints) : 'fuzz'
      const n = Number(schema.minItems ?? 0)
      return [
        Array.from({ length: n }, (_, i) =>
          typeof item === 'string' && schema.uniqueItems ? `${item}${i}` : cloneJson(item),
        ),
      ]
    }
    case 'object':
    case undefined: {
      const props = (schema.properties ?? {}) as Record<string, SchemaNode>
      const required = new Set((schema.required ?? []) as string[])
      const out: Record<string, unknown> = {}
      for (const [key, sub] of Object.entries(props)) {
        if (!required.has(key) && hints[key] === undefined) continue
        const value = validSample(ajv, sub, hints, key)
        if (value !== undefined) out[key] = value
        else if (required.has(key)) return []
      }
      const minProps = Number(schema.minProperties ?? 0)
      for (const [key, sub] of Object.entries(props)) {
        if (Object.keys(out).length >= minProps) break
        if (key in out) continue
        const value = validSample(ajv, sub, hints, key)
        if (value !== undefined) out[key] = value
      }
      return [out]
    }
    default:
      return []
  }
}

/** Where in a sample a mutation can land: a declared property (present or not), an item, the root. */
export interface Slot {
  path: Array<string | number>
  schema: SchemaNode
  required: boolean
}

export function slotsOf(
  schema: SchemaNode,
  value: unknown,
  path: Array<string | number> = [],
  required = true,
): Slot[] {
  const slots: Slot[] = [{ path, schema, required }]
  const branch = Array.isArray(schema.anyOf)
    ? (schema.anyOf as SchemaNode[]).find((s) => typesOf(s).includes(jsonType(value)))
    : schema
  if (!branch) return slots
  if (branch.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const req = new Set((branch.required ?? []) as string[])
    for (const [key, sub] of Object.entries(branch.properties as Record<string, SchemaNode>)) {
      const present = key in (value as Record<string, unknown>)
      if (present) slots.push(...slotsOf(sub, (value as Record<string, unknown>)[key], [...path, key], req.has(key)))
      else slots.push({ path: [...path, key], schema: sub, required: false })
    }
  }
  if (branch.items && Array.isArray(value) && value.length > 0)
    slots.push(...slotsOf(branch.items as SchemaNode, value[0], [...path, 0], true))
  return slots
}

/**
 * A field of free-form JSON: an object of undeclared properties whose values may be anything.
 * Known by its shape, not by the app's free-form keyword, so a field the app forgot to mark is
 * still given values past the limits (and unlimitedJsonNodes names it).
 */
export const isFreeForm = (s: SchemaNode): boolean =>
  typesOf(s).includes('object') && !s.properties && (s[FREE_FORM_KEYWORD] === true || unlimitedJsonNodes(s).length > 0)

export const freeFormSlots = (schema: SchemaNode, value: unknown): Slot[] =>
  slotsOf(schema, value).filter((slot) => isFreeForm(slot.schema))

/**
 * Where a schema takes JSON of any shape without the free-form limits: nodes with no type, and
 * objects that keep properties they do not declare. Each is a gap: nesting and size there are
 * bounded only by the body's own limits.
 */
export function unlimitedJsonNodes(schema: SchemaNode, path = 'body'): string[] {
  if (schema[FREE_FORM_KEYWORD] === true) return []
  const branches = (['anyOf', 'allOf', 'oneOf'] as const).flatMap((k) =>
    Array.isArray(schema[k]) ? (schema[k] as SchemaNode[]) : [],
  )
  if (branches.length) return branches.flatMap((b) => unlimitedJsonNodes(b, path))
  const types = typesOf(schema)
  if (!types.length) return 'enum' in schema || '$ref' in schema || 'not' in schema ? [] : [path]
  const gaps: string[] = []
  if (types.includes('object')) {
    for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, SchemaNode>))
      gaps.push(...unlimitedJsonNodes(sub, `${path}.${key}`))
    for (const [pattern, sub] of Object.entries((schema.patternProperties ?? {}) as Record<string, SchemaNode>))
      gaps.push(...unlimitedJsonNodes(sub, `${path}{${pattern}}`))
    const extra = schema.additionalProperties
    if (typeof extra === 'object' && extra !== null) gaps.push(...unlimitedJsonNodes(extra as SchemaNode, `${path}{*}`))
    else if (extra !== false && !schema.patternProperties) gaps.push(`${path} (undeclared properties)`)
  }
  if (types.includes('array') && schema.items) gaps.push(...unlimitedJsonNodes(schema.items as SchemaNode, `${path}[]`))
  return gaps
}

const jsonType = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value

/** Values at and just past the schema's own bounds: lengths, ranges, item counts, patterns. */
export function boundaryValues(schema: SchemaNode): fc.Arbitrary<unknown> | undefined {
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as SchemaNode[]) : [schema]
  const options: Array<fc.WeightedArbitrary<unknown>> = []
  const add = (arbitrary: fc.Arbitrary<unknown>, weight = 4) => options.push({ arbitrary, weight })
  const unit = fc.constantFrom('a', '\u{1F600}', 'e\u0301', '\u0000', '\u202e', ' ')
  for (const b of branches) {
    const type = typesOf(b)[0]
    if (type === 'string') {
      if (typeof b.maxLength === 'number') {
        const max = b.maxLength
        add(unit.map((u) => stringOfCodePoints(max + 1, u)))
        // Rarely (they are slow to send): a value near the body limit; the body may then be over it (413).
        add(fc.constant('x'.repeat(Math.max(max + 1, 600_000))), 1)
      }
      if (typeof b.minLength === 'number' && b.minLength > 0) {
        const min = b.minLength
        add(unit.map((u) => stringOfCodePoints(min - 1, u)))
      }
      if (b.pattern || b.format || 'const' in b || b.enum) add(hostileString)
      if ('const' in b && typeof b.const === 'string') {
        const c = b.const
        add(fc.constantFrom(c.toUpperCase(), ` ${c}`, `${c}\u0000`, `${c}\u200b`, `${c}\u0301`))
      }
    }
    if (type === 'integer' || type === 'number') {
      const edges: unknown[] = [new RawJson('1e309'), new RawJson('-1e309'), '1', 'NaN']
      if (typeof b.minimum === 'number')
        edges.push(b.minimum - 1, b.minimum - 0.5, new RawJson(`${b.minimum}e0`), -1e308)
      if (typeof b.maximum === 'number') edges.push(b.maximum + 1, b.maximum + 0.5, 1e308)
      if (type === 'integer') edges.push(1.5, 2 ** 53 + 0.5, new RawJson('1.0000000000000001'))
      add(fc.constantFrom(...edges))
      add(hostileNumber)
    }
    if (type === 'array') {
      const item = b.items as SchemaNode | undefined
      if (typeof b.maxItems === 'number') {
        const max = b.maxItems
        add(fc.constant(Array.from({ length: max + 1 }, (_, i) => `item${i}`)))
      }
      add(fc.constant(Array.from({ length: 10_000 }, () => 0)), 1)
      if (typeof b.minItems === 'number' && b.minItems > 0) add(fc.constant([]))
      if (b.uniqueItems) add(fc.constant(['dup', 'dup']))
      if (item) add(wrongTypeValue(typesOf(item)).map((v) => [v]))
    }
    if (type === 'object') {
      if (typeof b.maxProperties === 'number') {
        const max = b.maxProperties
        add(fc.constant(Object.fromEntries(Array.from({ length: max + 1 }, (_, i) => [`k${i}`, i]))))
      }
      add(fc.constant(deepNest(200, 'object')))
      add(fc.constant([]))
    }
  }
  return options.length ? fc.oneof(...options) : undefined
}

/** Payloads that try to reach Object.prototype through a parsed body. */
export const pollutionPayloads: fc.Arbitrary<{ key: string; value: unknown }> = fc.constantFrom(
  { key: '__proto__', value: { [POLLUTION_MARKER]: true } },
  { key: 'constructor', value: { prototype: { [POLLUTION_MARKER]: true } } },
  { key: 'prototype', value: { [POLLUTION_MARKER]: true } },
  { key: 'constructor', value: 'not a function' },
  { key: 'hasOwnProperty', value: 'shadowed' },
  { key: 'toString', value: { [POLLUTION_MARKER]: true } },
)

/** One mutation at one slot of a sample; the result may still be valid (the caller checks). */
export function mutateAt(
  value: unknown,
  path: ReadonlyArray<string | number>,
  op: { kind: 'set'; to: unknown } | { kind: 'delete' } | { kind: 'add-key'; key: string; to: unknown },
): unknown {
  const root = cloneJson(value)
  if (path.length === 0) {
    if (op.kind === 'set') return op.to
    if (op.kind === 'add-key')
      return root !== null && typeof root === 'object' && !Array.isArray(root)
        ? withKey(root as Record<string, unknown>, op.key, op.to)
        : withKey({}, op.key, op.to)
    return undefined
  }
  let parent: unknown = root
  for (const step of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return root
    parent = (parent as Record<string | number, unknown>)[step]
  }
  if (parent === null || typeof parent !== 'object') return root
  const last = path[path.length - 1]!
  const container = parent as Record<string | number, unknown>
  if (op.kind === 'delete') delete container[last]
  else if (op.kind === 'set') {
    if (typeof last === 'string') withKey(container as Record<string, unknown>, last, op.to)
    else container[last] = op.to
  } else {
    const target = container[last]
    if (target !== null && typeof target === 'object' && !Array.isArray(target))
      withKey(target as Record<string, unknown>, op.key, op.to)
    else container[last] = withKey({}, op.key, op.to)
  }
  return root
}

/** Mutations of one sample: wrong types, missing required fields, bounds, hostile text, nesting, prototype keys. */
export function valueMutations(schema: SchemaNode, base: unknown): fc.Arbitrary<{ value: unknown; label: string }> {
  const slots = slotsOf(schema, base)
  const perSlot = slots.map((slot) => {
    const where = slot.path.length ? slot.path.join('.') : '(root)'
    const ops: Array<fc.Arbitrary<{ value: unknown; label: string }>> = [
      wrongTypeValue(typesOf(slot.schema)).map((to) => ({
        value: mutateAt(base, slot.path, { kind: 'set', to }),
        label: `wrong type at ${where}`,
      })),
      hostileString.map((to) => ({
        value: mutateAt(base, slot.path, { kind: 'set', to }),
        label: `hostile string at ${where}`,
      })),
      fc.constantFrom(deepNest(200, 'array'), deepNest(200, 'object')).map((to) => ({
        value: mutateAt(base, slot.path, { kind: 'set', to }),
        label: `200-deep nesting at ${where}`,
      })),
    ]
    const bounds = boundaryValues(slot.schema)
    if (bounds)
      ops.push(
        bounds.map((to) => ({
          value: mutateAt(base, slot.path, { kind: 'set', to }),
          label: `boundary value at ${where}`,
        })),
      )
    if (slot.required && slot.path.length)
      ops.push(
        fc.constant({ value: mutateAt(base, slot.path, { kind: 'delete' }), label: `missing required ${where}` }),
      )
    if (isFreeForm(slot.schema)) {
      ops.push(
        fc.constantFrom(...pastFreeFormLimits()).map(({ value, label }) => ({
          value: mutateAt(base, slot.path, { kind: 'set', to: value }),
          label: `${label} at ${where}`,
        })),
      )
    }
    if (typesOf(slot.schema).includes('object') || slot.schema.properties) {
      ops.push(
        pollutionPayloads.map(({ key, value }) => ({
          value: mutateAt(base, slot.path, { kind: 'add-key', key, to: value }),
          label: `key ${key} at ${where}`,
        })),
      )
    }
    return fc.oneof(...ops)
  })
  return fc.oneof(...perSlot)
}
