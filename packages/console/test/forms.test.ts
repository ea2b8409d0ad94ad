import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseAttributeLines, parseJsonObject, parseList, parsePredicateLines } from '../src/lib/forms.js'

describe('console form parsing', () => {
  it('reads schema attribute lines, required or not', () => {
    assert.deepEqual(parseAttributeLines('given_name: string required\n\n  gpa:number  '), [
      { name: 'given_name', data_type: 'string', required: true },
      { name: 'gpa', data_type: 'number', required: false },
    ])
  })

  it('names the line and the accepted types when an attribute line is wrong', () => {
    assert.throws(() => parseAttributeLines('gpa: float'), /"gpa: float".*string, number/)
    assert.throws(() => parseAttributeLines('  \n'), /at least one line/)
  })

  it('reads predicates, numbers as numbers and dates as text', () => {
    assert.deepEqual(parsePredicateLines('gpa >= 3\nbirth_date < 2008-01-01\nscore>2.5'), [
      { attribute: 'gpa', operator: '>=', value: 3 },
      { attribute: 'birth_date', operator: '<', value: '2008-01-01' },
      { attribute: 'score', operator: '>', value: 2.5 },
    ])
    assert.throws(() => parsePredicateLines('gpa == 3'), /"gpa == 3"/)
  })

  it('accepts only a JSON object where one is expected', () => {
    assert.deepEqual(parseJsonObject(' {"gpa": 3.8} ', 'Attributes'), { gpa: 3.8 })
    assert.deepEqual(parseJsonObject('', 'Attributes'), {})
    assert.throws(() => parseJsonObject('[1]', 'Attributes'), /Attributes: a JSON object/)
    assert.throws(() => parseJsonObject('{gpa', 'Attributes'), /Attributes: not valid JSON/)
  })

  it('splits comma lists', () => {
    assert.deepEqual(parseList(' given_name, ,family_name '), ['given_name', 'family_name'])
  })
})
