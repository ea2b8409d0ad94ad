/** Which DCQL queries the hosted wallet answers (OpenID4VP 1.0 §6.4.2), as credential-set-choice.ts decides it. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DcqlQuery } from 'dcql'
import { UnprocessableError, ValidationError } from '../../src/errors.js'
import { chooseQueries } from '../../src/modules/openid4vc/holder/credential-set-choice.js'

const query = (credentialSets?: unknown) =>
  DcqlQuery.parse({
    credentials: ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://x/vct'] },
    })),
    ...(credentialSets ? { credential_sets: credentialSets } : {}),
  } as DcqlQuery.Input)
const cost = (costs: Record<string, number>) => (id: string) => costs[id] ?? 0

describe('chooseQueries', () => {
  it('without credential sets, every query is answered', () => {
    assert.deepEqual(chooseQueries(query(), new Set(['a', 'b', 'c', 'd']), cost({})).queries, ['a', 'b', 'c', 'd'])
  })

  it('answers the cheapest satisfiable option of a required set, ties to the verifier’s order, and the queries no set names', () => {
    const q = query([{ options: [['a'], ['b', 'c']] }])
    assert.deepEqual(chooseQueries(q, new Set(['a', 'b', 'c', 'd']), cost({ a: 3, b: 1, c: 1 })).queries, [
      'b',
      'c',
      'd',
    ])
    assert.deepEqual(chooseQueries(q, new Set(['a', 'b', 'c', 'd']), cost({ a: 2, b: 1, c: 1 })).queries, ['a', 'd'])
    assert.deepEqual(
      chooseQueries(q, new Set(['b', 'c', 'd']), cost({ a: 0, b: 5, c: 5 })).sets[0]!.chosen,
      1,
      'an option the wallet cannot meet is never chosen',
    )
  })

  it('leaves an optional set out unless chosen, and refuses choices that do not fit', () => {
    const q = query([{ options: [['a']] }, { options: [['b'], ['c']], required: false }])
    const all = new Set(['a', 'b', 'c', 'd'])
    assert.deepEqual(chooseQueries(q, all, cost({})).queries, ['a', 'd'])
    assert.deepEqual(chooseQueries(q, all, cost({}), { 1: 1 }).queries, ['a', 'c', 'd'])
    assert.throws(() => chooseQueries(q, all, cost({}), { 0: null }), ValidationError)
    assert.throws(() => chooseQueries(q, all, cost({}), { 1: 2 }), ValidationError)
    assert.throws(() => chooseQueries(q, all, cost({}), { 2: 0 }), ValidationError)
    assert.throws(() => chooseQueries(q, all, cost({}), { '01': 0 }), ValidationError)
    assert.throws(() => chooseQueries(q, new Set(['a', 'b', 'd']), cost({}), { 1: 1 }), UnprocessableError)
  })

  it('a query no set names, or a required set, that nothing meets is a 422 naming the queries', () => {
    assert.throws(
      () => chooseQueries(query([{ options: [['a']] }]), new Set(['a', 'b', 'c']), cost({})),
      (e: unknown) => e instanceof UnprocessableError && /d/.test(e.message),
    )
    assert.throws(
      () => chooseQueries(query([{ options: [['a'], ['b']] }]), new Set(['c', 'd']), cost({})),
      UnprocessableError,
    )
  })
})
