import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { POLLUTION_MARKER } from './hostile-values.js'
import { build, classify, type Draft, type FuzzContext, type Verdict } from './request-model.js'

/** A request still unanswered after this is a hang (not slowness: a loaded machine may take seconds). */
export const REQUEST_TIMEOUT_MS = 60_000

/** What one fuzz phase sent and got back, for the report and the coverage checks. */
export interface PhaseStats {
  sent: number
  invalid: number
  byStatus: Map<number, number>
  byRoute: Map<string, number>
}

export const newStats = (): PhaseStats => ({ sent: 0, invalid: 0, byStatus: new Map(), byRoute: new Map() })

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1)

/** app.inject with a deadline: a request the app never answers is a failure, not a stuck suite. */
export async function injectWithin(
  app: FastifyInstance,
  request: InjectOptions,
  ms = REQUEST_TIMEOUT_MS,
): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (hang)`)), ms)
  })
  try {
    return await Promise.race([app.inject(request), deadline])
  } finally {
    clearTimeout(timer)
  }
}

const preview = (text: string, n = 600) => (text.length > n ? `${text.slice(0, n)}... (${text.length} chars)` : text)

/** Why the response breaks the contract, or undefined: never a 5xx; a refusal is a 4xx with the error body. */
export function problemWith(draft: Draft, verdict: Verdict, res: LightMyRequestResponse): string | undefined {
  const status = res.statusCode
  if (status >= 500) return `answered ${status}`
  if (verdict.invalid && (status < 400 || status >= 500))
    return `accepted invalid input (${verdict.why}) with ${status}`
  if (verdict.invalid && verdict.status !== undefined && status !== verdict.status)
    return `expected ${verdict.status} (${verdict.why}), got ${status}`
  if (status >= 400 && draft.target.method !== 'HEAD') {
    let body: { success?: unknown; message?: unknown; code?: unknown }
    try {
      body = res.json()
    } catch {
      return `${status} without a JSON body`
    }
    if (
      body.success !== false ||
      typeof body.message !== 'string' ||
      body.message === '' ||
      typeof body.code !== 'string'
    )
      return `${status} without the error body {success:false, message, code}`
  }
  if ((Object.prototype as Record<string, unknown>)[POLLUTION_MARKER] !== undefined)
    return 'Object.prototype was polluted'
  return undefined
}

/**
 * One fast-check property over a phase's drafts: build, classify, (skip what `accept` refuses),
 * send with a deadline, judge. Failures report the request and the seed to replay it with.
 */
export async function runPhase(options: {
  app: FastifyInstance
  ctx: FuzzContext
  drafts: fc.Arbitrary<Draft>
  /** Which classified requests this phase sends (e.g. only invalid ones). */
  accept: (verdict: Verdict, target: Draft['target']) => boolean
  numRuns: number
  seed: number
  /** How to rerun the whole suite the same way (the run's FUZZ_SEED), for the failure message. */
  replay: string
  stats: PhaseStats
}): Promise<void> {
  const { app, ctx, stats } = options
  const property = fc.asyncProperty(options.drafts, async (draft) => {
    const built = build(draft, ctx)
    fc.pre(built !== undefined)
    const verdict = classify(draft, built, ctx)
    fc.pre(options.accept(verdict, draft.target))
    stats.sent++
    if (verdict.invalid) stats.invalid++
    bump(stats.byRoute, `${draft.target.method} ${draft.target.url}`)
    const res = await injectWithin(app, built)
    bump(stats.byStatus, res.statusCode)
    const problem = problemWith(draft, verdict, res)
    if (problem) {
      throw new Error(
        `${problem}\n  request: ${built.method} ${preview(built.url)}${built.query ? ` query ${preview(JSON.stringify(built.query))}` : ''}\n` +
          `  route: ${draft.target.method} ${draft.target.url}; mutation: ${draft.labels.join(' + ')}\n` +
          `  headers: ${preview(JSON.stringify({ ...built.headers, authorization: built.headers.authorization && '(set)' }))}\n` +
          `  payload: ${preview(typeof built.payload === 'string' ? JSON.stringify(built.payload) : built.payload ? `<${built.payload.length} bytes>` : '(none)')}\n` +
          `  response: ${preview(res.body)}`,
      )
    }
  })
  await fc.assert(property, {
    numRuns: options.numRuns,
    seed: options.seed,
    maxSkipsPerRun: 200,
    // The first failure is the report: shrinking would replay hundreds of requests, and the
    // counterexample (a megabyte string, say) is best described by the request it became.
    endOnFailure: true,
    reporter: (details) => {
      if (!details.failed) return
      const cause =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance ?? 'too many skipped drafts')
      throw new Error(
        `${cause}\n  replay: ${options.replay} (this phase: fast-check seed ${details.seed}, path ${details.counterexamplePath ?? '-'}, run ${details.numRuns})`,
      )
    },
  })
}
