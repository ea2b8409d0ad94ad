/** Form text to API bodies, with messages that name the field. */

const TYPES = ['string', 'number', 'boolean', 'date', 'email', 'url'] as const
type DataType = (typeof TYPES)[number]

/** `name: type [required]` lines to the schema route's attributes. */
export function parseAttributeLines(text: string): Array<{ name: string; data_type: DataType; required: boolean }> {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean)
  if (!lines.length) throw new Error('Attributes: give at least one line "name: type"')
  return lines.map((line) => {
    const match = /^([A-Za-z_][\w]*)\s*:\s*(\w+)(\s+required)?$/.exec(line)
    if (!match || !(TYPES as readonly string[]).includes(match[2]!)) throw new Error(`Attributes: "${line}" is not "name: type [required]" with a type among ${TYPES.join(', ')}`)
    return { name: match[1]!, data_type: match[2] as DataType, required: Boolean(match[3]) }
  })
}

export function parseJsonObject(text: string, field: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text.trim() || '{}')
  } catch {
    throw new Error(`${field}: not valid JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${field}: a JSON object is expected, e.g. {"gpa": 3.8}`)
  return value as Record<string, unknown>
}

/** `gpa >= 3` lines to predicates; numbers stay numbers, dates and other text stay text. */
export function parsePredicateLines(text: string): Array<{ attribute: string; operator: '>=' | '>' | '<=' | '<'; value: number | string }> {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).map((line) => {
    const match = /^([A-Za-z_]\w*)\s*(>=|<=|>|<)\s*(\S+)$/.exec(line)
    if (!match) throw new Error(`Predicates: "${line}" is not "attribute operator value" (operators >=, >, <=, <)`)
    const raw = match[3]!
    return { attribute: match[1]!, operator: match[2] as '>=' | '>' | '<=' | '<', value: /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw }
  })
}

export function parseList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean)
}
