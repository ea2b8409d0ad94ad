import type { CommandSpec } from '../args/command.js'
import { UsageError } from '../args/command.js'
import { commaList, int, required, str } from '../args/values.js'
import { table } from '../output/output.js'
import { body, shortTime } from './answer.js'

const POLICIES = ['indefinite', 'one_time_use', 'fixed_date'] as const
const ACCESS = ['read_only', 'read_write', 'full_access', 'one_time', 'write', 'delete'] as const

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value !== undefined && !(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`)
  return value as T | undefined
}

export const walletConsentCommands: CommandSpec[] = [
  {
    path: ['wallet', 'consents', 'list'],
    summary: "The acting holder's consents to verifiers",
    options: {
      verifier: { type: 'string', value: '<did>', description: 'Only for this verifier' },
      status: { type: 'string', value: '<active|revoked|expired>', description: 'Only these' },
    },
    async run(ctx, { values }) {
      const { client, did } = await ctx.signedIn()
      const [verifier, status] = [str(values, 'verifier'), str(values, 'status')]
      const query = {
        ...(verifier ? { verifier_did: verifier } : {}),
        ...(status ? { status: status as 'active' } : {}),
      }
      const answer = await body(client.api.GET('/api/wallet/{did}/consents', { params: { path: { did }, query } }))
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(
              ['ID', 'STATUS', 'POLICY', 'VERIFIER', 'PURPOSE'],
              answer.data.map((c) => [c.id, c.status, c.expiration_policy, c.verifier_did, c.purpose]),
            )
          : ['no consents'],
      )
    },
  },
  {
    path: ['wallet', 'consents', 'grant'],
    summary: 'Grant a verifier consent to receive presentations for a purpose',
    options: {
      verifier: { type: 'string', value: '<did>', description: 'The verifier' },
      purpose: { type: 'string', value: '<text>', description: "The purpose, as the verifier's request states it" },
      policy: {
        type: 'string',
        value: `<${POLICIES.join('|')}>`,
        description: 'How long it lasts (default indefinite)',
      },
      'expires-at': { type: 'string', value: '<iso-date>', description: 'With --policy fixed_date' },
      categories: { type: 'string', multiple: true, value: '<a,b>', description: 'Data categories' },
      access: { type: 'string', value: `<${ACCESS.join('|')}>`, description: 'Access level (default read_only)' },
    },
    async run(ctx, { values }) {
      const policy = oneOf(str(values, 'policy'), POLICIES, 'policy')
      const access = oneOf(str(values, 'access'), ACCESS, 'access')
      const expires = str(values, 'expires-at')
      const categories = commaList(values, 'categories')
      const consent = {
        verifier_did: required(values, 'verifier'),
        purpose: required(values, 'purpose'),
        ...(policy ? { expiration_policy: policy } : {}),
        ...(access ? { access_level: access } : {}),
        ...(expires ? { expires_at: expires } : {}),
        ...(categories.length ? { data_categories: categories } : {}),
      }
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.POST('/api/wallet/{did}/consents', { params: { path: { did } }, body: consent }),
      )
      ctx.out.result(answer, [
        `consent ${answer.consent.id} for ${answer.consent.verifier_did} (${answer.consent.expiration_policy})`,
      ])
    },
  },
  {
    path: ['wallet', 'consents', 'revoke'],
    summary: 'Revoke a consent',
    positionals: [{ name: 'consent-id', description: 'The consent' }],
    async run(ctx, { positionals }) {
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.POST('/api/wallet/{did}/consents/{consent_id}/revoke', {
          params: { path: { did, consent_id: positionals[0]! } },
        }),
      )
      ctx.out.result(answer, [`consent ${answer.consent.id}: ${answer.consent.status}`])
    },
  },
  {
    path: ['wallet', 'activity'],
    summary: "The acting holder's log: credentials received, presentations, consents",
    options: {
      type: { type: 'string', value: '<type>', description: 'Only this type, e.g. presentation_submitted' },
      order: { type: 'string', value: '<asc|desc>', description: 'Oldest or newest first (default desc)' },
      limit: { type: 'string', value: '<n>', description: 'At most this many (default 50)' },
    },
    async run(ctx, { values }) {
      const order = oneOf(str(values, 'order'), ['asc', 'desc'] as const, 'order')
      const limit = int(values, 'limit')
      const type = str(values, 'type')
      const { client, did } = await ctx.signedIn()
      const query = { ...(order ? { order } : {}), ...(limit ? { limit } : {}), ...(type ? { type } : {}) }
      const answer = await body(client.api.GET('/api/wallet/{did}/activities', { params: { path: { did }, query } }))
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(
              ['TIME', 'TYPE', 'CREDENTIAL'],
              answer.data.map((a) => [shortTime(a.created_at), a.type, a.credential_id ?? '']),
            )
          : ['no activity'],
      )
    },
  },
]
