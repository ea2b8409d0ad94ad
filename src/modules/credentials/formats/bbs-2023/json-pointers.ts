/**
 * RFC 6901 JSON Pointers as bbs-2023 takes them (`mandatoryPointers`, `selectivePointers`),
 * checked against the document before any cryptography, so a caller's mistake is named: a
 * malformed pointer, or one that selects nothing in this document.
 */
export class PointerError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message)
    this.name = 'PointerError'
  }
}

/** The reference tokens of a pointer (RFC 6901 §3–4), or a PointerError. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/'))
    throw new PointerError(pointer, `"${pointer}" is not a JSON Pointer: it must start with "/" (RFC 6901 §3)`)
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~(?![01])/.test(token))
        throw new PointerError(
          pointer,
          `"${pointer}" is not a JSON Pointer: "~" must be followed by 0 or 1 (RFC 6901 §3)`,
        )
      return token.replace(/~1/g, '/').replace(/~0/g, '~')
    })
}

/** Throws a PointerError unless every pointer is well formed and names a value of `document`. */
export function checkPointers(document: unknown, pointers: readonly string[]): void {
  for (const pointer of pointers) {
    let value: unknown = document
    for (const token of pointerTokens(pointer)) {
      if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < value.length)
        value = value[Number(token)]
      else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, token))
        value = (value as Record<string, unknown>)[token]
      else throw new PointerError(pointer, `"${pointer}" selects nothing in this credential`)
    }
  }
}

/**
 * Terms whose values are JSON literals (`"@type": "@json"`, JSON-LD 1.1 §4.2.2) in these context
 * documents: such a value is one RDF literal, signed whole, so a pointer may select it but not
 * reach inside it (the part would be another literal, and the derived proof would not verify).
 */
export function jsonLiteralTerms(contexts: Iterable<unknown>): Set<string> {
  const terms = new Set<string>()
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'object' && child !== null && (child as Record<string, unknown>)['@type'] === '@json')
        terms.add(key)
      walk(child)
    }
  }
  for (const context of contexts) walk(context)
  return terms
}

/** Throws a PointerError for a pointer that goes inside the value of a JSON-literal term. */
export function checkNotInsideLiterals(pointers: readonly string[], literalTerms: Set<string>): void {
  for (const pointer of pointers) {
    const tokens = pointerTokens(pointer)
    const inside = tokens.slice(0, -1).find((t) => literalTerms.has(t))
    if (inside !== undefined)
      throw new PointerError(
        pointer,
        `"${pointer}" reaches inside "${inside}", a JSON value signed as one literal: select "${inside}" whole`,
      )
  }
}
