import { ServiceError } from '@credential-service/sdk'
import { UsageError, type CommandSpec } from '../args/command.js'
import { str } from '../args/values.js'
import { body } from './answer.js'

const PROFILE_FIELDS = ['name', 'description', 'website', 'logo-url', 'email', 'country'] as const

function profileLines(issuer: {
  did: string
  name: string
  description: string
  website: string | null
  email: string | null
  country?: string | null
}): string[] {
  return [
    `issuer:  ${issuer.did}`,
    `name:    ${issuer.name}`,
    ...(issuer.description ? [`about:   ${issuer.description}`] : []),
    ...(issuer.website ? [`website: ${issuer.website}`] : []),
    ...(issuer.email ? [`email:   ${issuer.email}`] : []),
    ...(issuer.country ? [`country: ${issuer.country}`] : []),
  ]
}

export const issuerProfileCommands: CommandSpec[] = [
  {
    path: ['issuer', 'profile', 'set'],
    summary: "Create or update the acting DID's issuer profile",
    details:
      'POST /api/issuer the first time (--name required), PUT /api/issuer/:did/update afterwards (only the fields given change).',
    options: {
      name: { type: 'string', value: '<text>', description: 'Display name' },
      description: { type: 'string', value: '<text>', description: 'About the issuer' },
      website: { type: 'string', value: '<url>', description: 'Website' },
      'logo-url': { type: 'string', value: '<url>', description: 'Logo' },
      email: { type: 'string', value: '<address>', description: 'Contact e-mail' },
      country: {
        type: 'string',
        value: '<XX>',
        description: "ISO 3166-1 alpha-2 country its mdoc certificates name; an mDL's issuing_country must equal it",
      },
      'signing-method': {
        type: 'string',
        value: '<web|key>',
        description: 'At creation: sign as a did:web hosted here (default) or as did:keys',
      },
    },
    examples: ['cps issuer profile set --name "Example University"', 'cps issuer profile set --country DE'],
    async run(ctx, { values }) {
      const fields = Object.fromEntries(
        PROFILE_FIELDS.flatMap((f) => (str(values, f) === undefined ? [] : [[f.replace('-', '_'), str(values, f)]])),
      )
      if (fields.country !== undefined && !/^[A-Z]{2}$/.test(fields.country))
        throw new UsageError(`--country takes an ISO 3166-1 alpha-2 code in capitals (DE, FR), not "${fields.country}"`)
      const { client, did } = await ctx.signedIn()
      const existing = await client.api
        .GET('/api/issuer/{did}', { params: { path: { did } } })
        .catch((error: unknown) => {
          if (error instanceof ServiceError && error.status === 404) return undefined
          throw error
        })
      if (!existing) {
        if (!fields.name) throw new UsageError('--name is required to create the issuer profile')
        const method = str(values, 'signing-method')
        const answer = await body(
          client.api.POST('/api/issuer', {
            body: {
              ...(fields as { name: string }),
              ...(method ? { signing_did_method: method as 'web' | 'key' } : {}),
            },
          }),
        )
        ctx.out.result(answer, ['issuer profile created', ...profileLines(answer.issuer)])
        return
      }
      if (!Object.keys(fields).length)
        throw new UsageError(
          'nothing to change: give at least one of --name, --description, --website, --logo-url, --email, --country',
        )
      const answer = await body(client.api.PUT('/api/issuer/{did}/update', { params: { path: { did } }, body: fields }))
      ctx.out.result(answer, ['issuer profile updated', ...profileLines(answer.issuer)])
    },
  },
  {
    path: ['issuer', 'profile', 'show'],
    summary: 'Show an issuer profile (GET /api/issuer/:did)',
    positionals: [{ name: 'did', description: 'Issuer DID (default: the acting key)', optional: true }],
    async run(ctx, { positionals }) {
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.GET('/api/issuer/{did}', { params: { path: { did: positionals[0] ?? did } } }),
      )
      ctx.out.result(answer, profileLines(answer.issuer))
    },
  },
]
