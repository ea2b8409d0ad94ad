import { Type } from '@sinclair/typebox'

/** Error responses by status, all the one ErrorResponse body. */
export const errorRefs = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((code) => [code, { $ref: 'ErrorResponse#' }]))

/** Keyset pagination: `limit` (1–200, default 50) and `cursor` = the previous page's `next_cursor`. */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 100, description: 'next_cursor of the previous page' })),
})

export const pageResponse = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({
    success: Type.Boolean(),
    data: Type.Array(item),
    count: Type.Integer(),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  })

/**
 * Runs a keyset query for one more row than the page holds, so the presence of a next page is
 * known without a count query.
 */
export async function paginate<R extends { id: string }, O>(
  query: { limit?: number; cursor?: string },
  fetch: (page: { limit: number; after?: string }) => Promise<R[]>,
  toBody: (row: R) => O,
): Promise<{ success: true; data: O[]; count: number; next_cursor: string | null }> {
  const limit = query.limit ?? 50
  const rows = await fetch({ limit: limit + 1, after: query.cursor })
  const page = rows.slice(0, limit)
  return {
    success: true,
    data: page.map(toBody),
    count: page.length,
    next_cursor: rows.length > limit ? page.at(-1)!.id : null,
  }
}

/** Row timestamps as ISO 8601 strings (the spec's `created_at`, `updated_at`). */
export function withIsoDates<R extends { created_at: Date; updated_at: Date }>(
  row: R,
): Omit<R, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string } {
  return {
    ...row,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }
}
