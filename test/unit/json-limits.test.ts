import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { freeFormProblem, JSON_LIMITS, nestingPastLimit } from '../../src/json-limits.js'

/** Nesting depth of a parsed value, `{}` being 1 (recursive: the values here are small). */
const depthOf = (value: unknown): number =>
  value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0

/** JSON with strings full of what a bracket counter could trip on: quotes, backslashes, brackets. */
const trickyString = fc.string({
  unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ':', 'a', '\u0000', '\u2028'),
})
const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, 0, -1.5),
    trickyString,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
})).value

describe('JSON limits', () => {
  it('nestingPastLimit finds exactly the texts deeper than the limit, and the path to the first container past it', () => {
    fc.assert(
      fc.property(trickyJson, fc.integer({ min: 0, max: 6 }), (value, limit) => {
        const text = JSON.stringify(value)
        const path = nestingPastLimit(text, limit)
        assert.equal(path !== undefined, depthOf(value) > limit)
        if (!path) return
        // The path leads, from the root, through `limit` containers to one more.
        assert.equal(path.length, limit)
        let at: unknown = value
        for (const step of path) at = (at as Record<string | number, unknown>)[step]
        assert.ok(at !== null && typeof at === 'object', `${JSON.stringify(path)} leads to a container`)
      }),
      { numRuns: 2000 },
    )
  })

  it('nestingPastLimit stops at the first bracket past the limit, so a megabyte of them costs nothing', () => {
    const text = '['.repeat(1 << 20)
    assert.deepEqual(nestingPastLimit(text, 3), [0, 0, 0])
    assert.equal(nestingPastLimit(`"${'['.repeat(100)}"`, 3), undefined)
    assert.deepEqual(nestingPastLimit('{"a\\"[":{"b":[{},{"c":[[]]}]}}', 4), ['a"[', 'b', 1, 'c'])
    // A string after a closed object in an array is an item, not a key.
    assert.deepEqual(nestingPastLimit('[{}, "x", [[1]]]', 2), [2, 0])
  })

  it('freeFormProblem holds a value to the depth, member and string limits, counting keys and items at every level', () => {
    const { freeFormDepth, freeFormMembers, freeFormStringLength } = JSON_LIMITS
    const nest = (depth: number) => {
      let value: unknown = 1
      for (let i = 1; i < depth; i++) value = [value]
      return { a: value }
    }
    assert.equal(freeFormProblem(nest(freeFormDepth)), undefined)
    assert.match(freeFormProblem(nest(freeFormDepth + 1)) ?? '', /nest deeper than 32 levels/)
    assert.equal(freeFormProblem({ a: Array.from({ length: freeFormMembers - 1 }, () => 0) }), undefined)
    assert.match(
      freeFormProblem({ a: { b: Array.from({ length: freeFormMembers - 1 }, () => 0) } }) ?? '',
      /more than 10000 keys and items/,
    )
    assert.equal(freeFormProblem({ a: 'x'.repeat(freeFormStringLength) }), undefined)
    assert.match(freeFormProblem({ a: ['x'.repeat(freeFormStringLength + 1)] }) ?? '', /string longer than 65536/)
    assert.match(
      freeFormProblem({ a: { ['k'.repeat(freeFormStringLength + 1)]: 1 } }) ?? '',
      /string longer than 65536/,
    )
    fc.assert(
      fc.property(trickyJson, (value) => assert.equal(freeFormProblem({ value }), undefined)),
      { numRuns: 500 },
    )
  })
})
