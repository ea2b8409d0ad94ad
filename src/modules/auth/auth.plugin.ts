import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { deriveKey } from '../../crypto/secret-box.js'
import type { ModuleContext } from '../shared/module-context.js'
import { authRoutes } from './auth.routes.js'
import { AuthService } from './auth.service.js'
import { ChallengeCodec } from './challenge-codec.js'
import { TokenService } from './token-service.js'
import { deleteSpentChallengesBefore } from './users.repository.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Session tokens: signed at login, checked by the access hook on every route that needs one. */
    sessionTokens: TokenService
    /** DID authentication: challenges, logins, users. */
    auth: AuthService
  }
}

// Spent challenges are only needed until they would have expired anyway; the margin covers
// clock skew between instances (a challenge must not become spendable again on another).
const SPENT_CHALLENGE_MARGIN_MS = 10 * 60_000

async function sessionTokens(app: FastifyInstance, { config, clock }: ModuleContext): Promise<void> {
  app.decorate(
    'sessionTokens',
    new TokenService(app.keys, config.publicBaseUrl, config.jwtTtlSeconds, () => clock.now()),
  )
}

/** The session tokens alone, made before the access hook that checks them. */
export const sessionTokensPlugin = fp(sessionTokens, { name: 'session-tokens', fastify: '5.x', dependencies: ['keys'] })

async function auth(app: FastifyInstance, { db, clock, config, content, masterKey }: ModuleContext): Promise<void> {
  const service = new AuthService({
    db,
    codec: new ChallengeCodec(deriveKey(masterKey, 'auth-challenge-mac-v1')),
    tokens: app.sessionTokens,
    resolver: app.didResolver,
    content,
    clock,
    challengeTtlSeconds: config.challengeTtlSeconds,
    registrableDidMethods: config.registrableDidMethods,
  })
  app.decorate('auth', service)
  await app.register(authRoutes, { prefix: '/api/auth', auth: service, publicBaseUrl: config.publicBaseUrl })
  const purge = setInterval(() => {
    void deleteSpentChallengesBefore(db, new Date(clock.now().getTime() - SPENT_CHALLENGE_MARGIN_MS)).catch((err) =>
      app.log.warn({ err }, 'purging spent challenges failed'),
    )
  }, 60_000)
  purge.unref()
  app.addHook('onClose', async () => clearInterval(purge))
}

export const authPlugin = fp(auth, { name: 'auth', fastify: '5.x', dependencies: ['session-tokens', 'identity'] })
