import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { displayDomain } from './domain-name.js'
import type { DomainChallengeRow, DomainVerificationRow } from './domain.repository.js'
import * as S from './domain.schemas.js'
import type { ChallengeView, DomainService } from './domain.service.js'

const tags = ['Domain']
const iso = (d: Date) => new Date(d).toISOString()
const isoOrNull = (d: Date | null) => (d === null ? null : iso(d))

/** Domain ownership checks for issuers and verifiers (spec: Domain group; DESIGN.md "Domains"). */
export const domainRoutes: FastifyPluginAsyncTypebox<{
  domains: DomainService
  idempotency: IdempotencyService
}> = async (app, { domains, idempotency }) => {
  const challengeView = ({ challenge: c, locations }: ChallengeView) => ({
    id: c.id,
    did: c.did,
    domain: c.domain,
    domain_unicode: displayDomain(c.domain),
    token: c.token,
    created_at: iso(c.created_at),
    expires_at: iso(c.expires_at),
    well_known: { url: locations.wellKnownUrl, content: c.token },
    dns_txt: { name: locations.txtName, type: 'TXT' as const, value: c.token },
    did_configuration: {
      url: locations.didConfigurationUrl,
      origin: locations.origin,
      description: 'Alternative without the token: a Domain Linkage Credential (JWT) signed by the DID, in linked_dids',
    },
  })
  const recordView = (record: DomainVerificationRow, challenge?: DomainChallengeRow) => {
    const status = domains.effectiveStatus(record)
    return {
      did: record.did,
      domain: record.domain,
      domain_unicode: displayDomain(record.domain),
      status,
      verified: status === 'verified',
      method: record.method,
      verified_at: isoOrNull(record.verified_at),
      valid_until: isoOrNull(record.valid_until),
      last_checked_at: isoOrNull(record.last_checked_at),
      last_error: record.last_error,
      challenge: challenge
        ? {
            id: challenge.id,
            token: challenge.token,
            status: domains.challengeState(challenge),
            expires_at: iso(challenge.expires_at),
          }
        : null,
      created_at: iso(record.created_at),
      updated_at: iso(record.updated_at),
    }
  }

  app.post(
    '/challenge',
    {
      schema: {
        tags,
        summary: 'A challenge token for a domain, and where to publish it (HTTPS well-known file or DNS TXT record)',
        description:
          "Each call replaces the domain's earlier challenge. Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201 (the same token); another body 422; while the first is in progress 409.",
        headers: IdempotencyHeaders,
        body: S.ChallengeBody,
        response: {
          201: Type.Object({ success: Type.Boolean(), message: Type.String(), challenge: S.Challenge }),
          ...errorRefs(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const did = request.auth!.did
      const { body: created } = await idempotency.run(
        keyedRequest(request),
        (claim) => domains.createChallenge(did, request.body, claim),
        (id) => domains.challenge(did, id),
      )
      return reply.status(201).send({
        success: true,
        message: 'Domain challenge created: publish the token, then call POST /api/domain/verify',
        challenge: challengeView(created),
      })
    },
  )

  app.post(
    '/verify',
    {
      schema: {
        tags,
        summary: 'Check a proof of control of the domain and record the outcome for the DID',
        body: S.VerifyBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            verified: Type.Boolean(),
            domain: S.DomainRecord,
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const record = await domains.verify(request.auth!.did, request.body)
      return {
        success: true,
        message: `${record.domain} verified for ${record.did}`,
        verified: true,
        domain: recordView(record),
      }
    },
  )

  app.get(
    '/status/:did',
    {
      schema: {
        tags,
        summary: 'Verification status of every domain of the DID',
        params: Type.Object({ did: Did }),
        querystring: S.StatusQuery,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            did: Type.String(),
            domains: Type.Array(S.DomainRecord),
            verified_domains: Type.Array(Type.String()),
          }),
          ...errorRefs(400, 401, 403),
        },
      },
    },
    async (request) => {
      const did = request.auth!.did
      const rows = (await domains.status(did, request.query.domain)).map(({ record, challenge }) =>
        recordView(record, challenge),
      )
      return {
        success: true,
        did,
        domains: rows,
        verified_domains: rows.filter((r) => r.verified).map((r) => r.domain),
      }
    },
  )
}
