/**
 * Bounds on JSON from outside: request bodies, the free-form values in them (attribute maps,
 * wallet metadata) and JSON inside signed material (JWT-VC claims, VP payloads). Nesting is what
 * breaks a service: recursive serializers and walkers overflow the stack, a reply nested a few
 * thousand levels deep cannot cross from the embedded database's thread to the event loop, and
 * PGlite's jsonb parser wedges where PostgreSQL fails the statement. Constants, not configuration:
 * they protect the implementation rather than express a deployment's choice.
 */
export const JSON_LIMITS = {
  /**
   * Any JSON document the service parses (a request body, counted before parsing; a JWS header or
   * payload). Above freeFormDepth, so a value at its limit still fits in the body or credential
   * that carries it, and in a presentation of that credential.
   */
  documentDepth: 64,
  /** One free-form value, counted from the value itself (`{}` is one level). */
  freeFormDepth: 32,
  /** Keys and array items of one free-form value, all levels together. */
  freeFormMembers: 10_000,
  /** Each string of a free-form value, keys included, in UTF-16 units. */
  freeFormStringLength: 65_536,
} as const

/** The Ajv keyword (src/plugins/validation.ts) that applies the free-form limits to a schema node. */
export const FREE_FORM_KEYWORD = 'x-free-form-json'

/** Why a free-form value breaks JSON_LIMITS (an Ajv-style "must ..." phrase), or undefined. Iterative: any depth is safe to check. */
export function freeFormProblem(value: unknown): string | undefined {
  const { freeFormDepth, freeFormMembers, freeFormStringLength } = JSON_LIMITS
  const tooLong = `must not hold a string longer than ${freeFormStringLength} characters`
  let members = 0
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const item = next.value
    if (typeof item === 'string') {
      if (item.length > freeFormStringLength) return tooLong
      continue
    }
    if (item === null || typeof item !== 'object') continue
    if (next.depth > freeFormDepth) return `must not nest deeper than ${freeFormDepth} levels`
    const children = Array.isArray(item) ? item : Object.values(item)
    members += children.length
    if (members > freeFormMembers) return `must not hold more than ${freeFormMembers} keys and items`
    if (!Array.isArray(item) && Object.keys(item).some((key) => key.length > freeFormStringLength)) return tooLong
    for (const child of children) pending.push({ value: child, depth: next.depth + 1 })
  }
  return undefined
}

/**
 * Where JSON text first nests deeper than `maxDepth`: the keys and indexes leading to that
 * container, or undefined. Reads the text without parsing it (brackets outside strings) and stops
 * there, so a body of a megabyte of `[` costs a few dozen characters rather than a parse.
 * Malformed text is not its concern: the parser that runs next refuses it.
 */
export function nestingPastLimit(text: string, maxDepth: number): Array<string | number> | undefined {
  // Per open container: its current index (array) or the span of its current key (object).
  const path: Array<number | { start: number; end: number } | undefined> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const end = closingQuote(text, i)
      if (end < 0) return undefined
      if (expectKey) {
        path[path.length - 1] = { start: i, end }
        expectKey = false
      }
      i = end
    } else if (c === 0x7b || c === 0x5b) {
      if (path.length >= maxDepth)
        return path.map((step) => (typeof step === 'object' ? keyText(text, step) : (step ?? '')))
      path.push(c === 0x5b ? 0 : undefined)
      expectKey = c === 0x7b
    } else if (c === 0x7d || c === 0x5d) {
      path.pop()
      expectKey = false
    } else if (c === 0x2c) {
      const top = path.at(-1)
      if (typeof top === 'number') path[path.length - 1] = top + 1
      else expectKey = true
    }
  }
  return undefined
}

/** The index of the quote that ends the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return at
  }
  return -1
}

function keyText(text: string, span: { start: number; end: number }): string {
  const raw = text.slice(span.start, span.end + 1)
  try {
    return String(JSON.parse(raw))
  } catch {
    return raw.slice(1, -1)
  }
}

/** A path for a message: `/attributes/address/…`, its first few steps only (the rest is as deep as the problem). */
export function pathText(path: ReadonlyArray<string | number>, steps = 4): string {
  const shown = path
    .slice(0, steps)
    .map((step) => `/${step}`)
    .join('')
  return path.length > steps ? `${shown}/…` : shown
}
