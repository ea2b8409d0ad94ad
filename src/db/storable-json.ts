/**
 * A JSON value PostgreSQL can store as jsonb: U+0000 (refused as 22P05) and unpaired UTF-16
 * surrogates (22P02), in strings and in keys, become U+FFFD. For values the service composes
 * from what others sent, such as a verification result quoting the presented credentials and
 * what was wrong with them: refusing it would answer the verifier 400 for the holder's bytes.
 * Values clients send to be stored as they are keep the 400 (unstorable-input.ts).
 */
export function storableJson<T>(value: T): T {
  return clean(value) as T
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return text(value)
  if (Array.isArray(value)) return value.map(clean)
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [text(key), clean(v)]))
  }
  return value
}

// ES2024's String.prototype.toWellFormed (Node 20 has it; the ES2023 lib does not declare it).
const text = (s: string): string =>
  (s as unknown as { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '\uFFFD')
