import type { AddressInfo } from 'node:net'
import type { Clock } from '../../../../src/adapters/clock.js'
import { HttpsFront } from '../../../../test/helpers/https-front.js'
import { createTestApp, type TestApp } from '../../../../test/helpers/test-app.js'

/** The service as a client meets it: the real app on a real port of 127.0.0.1 (plain HTTP). */
export interface LiveService {
  baseUrl: string
  t: TestApp
  close(): Promise<void>
}

export async function startService(
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<LiveService> {
  const t = await createTestApp({ env, ...options })
  await t.app.listen({ host: '127.0.0.1', port: 0 }).catch(async (error: unknown) => {
    await t.close()
    throw error
  })
  const { port } = t.app.server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}`, t, close: () => t.close() }
}

/**
 * The service on https (OpenID4VCI/VP are served on https only): the app behind a TLS listener
 * on a real port of localhost, its certificate trusted by this process (test/helpers/https-front.ts).
 * The hosted wallet may call this same instance (OUTBOUND_ALLOW_PRIVATE).
 */
export async function startHttpsService(env: Record<string, string> = {}): Promise<LiveService> {
  const front = await HttpsFront.open()
  const t = await createTestApp({
    env: { PUBLIC_BASE_URL: front.origin, OUTBOUND_ALLOW_PRIVATE: 'true', ...env },
  }).catch(async (error: unknown) => {
    await front.close()
    throw error
  })
  front.serve(t.app)
  return {
    baseUrl: front.origin,
    t,
    close: async () => {
      await t.close()
      await front.close()
    },
  }
}
