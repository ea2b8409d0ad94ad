import type { JsonClient } from './http-client.js'
import { percentile } from './stats.js'
import { signChallenge, type VirtualUser } from './virtual-user.js'

/** A login flow that did not end in 200 + token; `kind` names the step and the status. */
class FlowError extends Error {
  constructor(readonly kind: string) {
    super(kind)
  }
}

/** challenge -> sign -> verify-challenge; returns the session token. */
export async function loginOnce(client: JsonClient, user: VirtualUser): Promise<string> {
  const issued = await client.post('/api/auth/challenge', { did: user.did })
  if (issued.status !== 200) throw new FlowError(`challenge ${issued.status}`)
  const { challenge } = JSON.parse(issued.body) as { challenge?: unknown }
  if (typeof challenge !== 'string') throw new FlowError('challenge missing')
  const verified = await client.post('/api/auth/verify-challenge', {
    did: user.did,
    challenge,
    signature: signChallenge(user, challenge),
  })
  if (verified.status !== 200) throw new FlowError(`verify ${verified.status}`)
  const { token } = JSON.parse(verified.body) as { token?: unknown }
  if (typeof token !== 'string' || token.split('.').length !== 3) throw new FlowError('verify without token')
  return token
}

export interface LoginLoadResult {
  flows: number
  seconds: number
  flowsPerSecond: number
  errors: number
  errorKinds: Record<string, number>
  p50Ms: number
  p99Ms: number
}

/**
 * Every user loops over login flows until the deadline. Only flows that complete inside the
 * window count, so flows/s is not inflated by the tail of in-flight flows after it.
 */
export async function runLoginLoad(
  client: JsonClient,
  users: VirtualUser[],
  seconds: number,
): Promise<LoginLoadResult> {
  const start = performance.now()
  const deadline = start + seconds * 1000
  const latencies: number[] = []
  const errorKinds: Record<string, number> = {}
  const loop = async (user: VirtualUser) => {
    while (performance.now() < deadline) {
      const began = performance.now()
      try {
        await loginOnce(client, user)
        const ended = performance.now()
        if (ended <= deadline) latencies.push(ended - began)
      } catch (error) {
        const kind =
          error instanceof FlowError ? error.kind : `network ${(error as NodeJS.ErrnoException).code ?? String(error)}`
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
      }
    }
  }
  await Promise.all(users.map(loop))
  const sorted = Float64Array.from(latencies).sort()
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0)
  return {
    flows: latencies.length,
    seconds,
    flowsPerSecond: latencies.length / seconds,
    errors,
    errorKinds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  }
}

interface ProfileBody {
  profile: { did: string; created_at: string; last_login_at: string | null }
}

async function profileOf(client: JsonClient, token: string): Promise<ProfileBody['profile']> {
  const res = await client.get('/api/auth/profile', { authorization: `Bearer ${token}` })
  if (res.status !== 200) throw new Error(`profile ${res.status}: ${res.body}`)
  return (JSON.parse(res.body) as ProfileBody).profile
}

/** First login of every user (this creates the user rows); remembers when each was created. */
export async function enrollUsers(client: JsonClient, users: VirtualUser[]): Promise<Map<string, string>> {
  const created = new Map<string, string>()
  await Promise.all(
    users.map(async (user) => {
      const profile = await profileOf(client, await loginOnce(client, user))
      created.set(user.did, profile.created_at)
    }),
  )
  return created
}

/**
 * After the load: every user still has the row its first login created (same created_at)
 * and a later last_login_at, i.e. the measured logins reused users instead of creating them.
 */
export async function countReusedUsers(
  client: JsonClient,
  users: VirtualUser[],
  created: Map<string, string>,
): Promise<number> {
  const ok = await Promise.all(
    users.map(async (user) => {
      const profile = await profileOf(client, await loginOnce(client, user))
      return (
        profile.did === user.did &&
        profile.created_at === created.get(user.did) &&
        profile.last_login_at !== null &&
        profile.last_login_at > profile.created_at
      )
    }),
  )
  return ok.filter(Boolean).length
}
