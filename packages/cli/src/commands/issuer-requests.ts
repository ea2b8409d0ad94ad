import type { HolderKey } from '@credential-service/sdk'
import { UsageError, type CommandSpec } from '../args/command.js'
import { attributes, str } from '../args/values.js'
import { table } from '../output/output.js'
import { body, shortTime } from './answer.js'
import { ATTRIBUTE_OPTIONS, schemaTypes } from './issuer-credentials.js'

const STATUSES = ['pending', 'approved', 'rejected'] as const

/**
 * The Ed25519 signature (RFC 8032, through WebCrypto) of a challenge's UTF-8 bytes, base64: what
 * the service's challenge routes verify (interface spec "Authentication", step 2).
 */
async function signChallenge(key: HolderKey, challenge: string): Promise<string> {
  if (key.alg !== 'EdDSA')
    throw new UsageError("approving needs the issuer DID's Ed25519 key (the acting key is ES256)")
  const signature = await globalThis.crypto.subtle.sign('Ed25519', key.privateKey, new TextEncoder().encode(challenge))
  return Buffer.from(signature).toString('base64')
}

export const issuerRequestCommands: CommandSpec[] = [
  {
    path: ['issuer', 'requests', 'list'],
    summary: "Holders' credential requests to the acting issuer",
    options: { status: { type: 'string', value: '<pending|approved|rejected>', description: 'Only these' } },
    async run(ctx, { values }) {
      const status = str(values, 'status')
      if (status && !(STATUSES as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`)
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.GET('/api/issuer/{did}/requests', {
          params: { path: { did }, query: status ? { status: status as (typeof STATUSES)[number] } : {} },
        }),
      )
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(
              ['ID', 'STATUS', 'TYPE', 'HOLDER', 'CREATED'],
              answer.data.map((r) => [r.id, r.status, r.credential_type, r.holder_did, shortTime(r.created_at)]),
            )
          : ['no requests'],
      )
    },
  },
  {
    path: ['issuer', 'requests', 'approve'],
    summary: 'Approve a request: the credential is issued to the holder',
    details:
      'GET /api/wallet/issuer/:did/request/:id/challenge, the challenge signed here with the issuer key (step-up), POST …/approve.',
    positionals: [{ name: 'request-id', description: 'The request' }],
    options: {
      ...ATTRIBUTE_OPTIONS,
      expires: { type: 'string', value: '<iso-date>', description: 'Expiration date of the credential' },
    },
    async run(ctx, { values, positionals }) {
      const { client, did, key } = await ctx.signedIn()
      const id = positionals[0]!
      const request = await body(
        client.api.GET('/api/issuer/{did}/requests/{request_id}', { params: { path: { did, request_id: id } } }),
      )
      const attrs = attributes(values, await schemaTypes(client, did, request.request.schema_id))
      const { challenge } = await body(
        client.api.GET('/api/wallet/issuer/{issuer_did}/request/{request_id}/challenge', {
          params: { path: { issuer_did: did, request_id: id } },
        }),
      )
      const expires = str(values, 'expires')
      const answer = await ctx.out.progress('issuing', async () =>
        body(
          client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/approve', {
            params: { path: { issuer_did: did, request_id: id } },
            body: {
              challenge,
              signature: await signChallenge(key, challenge),
              ...(Object.keys(attrs).length ? { attributes: attrs } : {}),
              ...(expires ? { expiration_date: expires } : {}),
            },
          }),
        ),
      )
      ctx.out.result(answer, [
        `request ${id}: approved`,
        `credential ${answer.credential.id} issued to ${answer.credential.credential.owner_did}`,
      ])
    },
  },
  {
    path: ['issuer', 'requests', 'reject'],
    summary: 'Reject a request',
    positionals: [{ name: 'request-id', description: 'The request' }],
    options: { reason: { type: 'string', value: '<text>', description: 'Told to the holder' } },
    async run(ctx, { values, positionals }) {
      const { client, did } = await ctx.signedIn()
      const reason = str(values, 'reason')
      const answer = await body(
        client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/reject', {
          params: { path: { issuer_did: did, request_id: positionals[0]! } },
          body: reason ? { reason } : {},
        }),
      )
      ctx.out.result(answer, [`request ${answer.request.id}: ${answer.request.status}`])
    },
  },
]
