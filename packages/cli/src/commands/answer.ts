/**
 * The body of an openapi-fetch answer. The SDK's client throws ServiceError on every non-2xx,
 * so a missing body here means a 2xx without JSON, which no route of the service answers.
 */
export async function body<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call
  if (data === undefined) throw new Error(`the service answered HTTP ${response.status} without a body`)
  return data
}

/** `2026-11-27T20:00:00.000Z` -> `2026-11-27 20:00`, for tables. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) : ''
}
