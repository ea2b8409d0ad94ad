import { DataItem, cborDecode, cborEncode } from '@owf/mdoc'
const bytes = cborEncode(new Map([['x', DataItem.fromData(new Map([['a', 1]]))]]))
await import('@auth0/mdl')
console.log('@auth0/mdl', cborDecode<Map<string, unknown>>(bytes).get('x') instanceof DataItem)
