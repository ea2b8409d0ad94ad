/**
 * The first line of what a protocol library threw (zod and the OAuth libraries append multi-line
 * detail), at most `max` characters: what an error message may quote of it.
 */
export function firstLine(error: unknown, max = 300): string {
  const text = typeof error === 'string' ? error : error instanceof Error ? error.message : String(error)
  return text.split('\n')[0]!.slice(0, max)
}
