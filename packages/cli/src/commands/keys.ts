import { exportHolderKey, generateHolderKey, importHolderKey } from '@credential-service/sdk'
import { UsageError, type CommandSpec } from '../args/command.js'
import { str } from '../args/values.js'
import { table } from '../output/output.js'

const ALGS = ['EdDSA', 'ES256'] as const

export const keysCommands: CommandSpec[] = [
  {
    path: ['keys', 'new'],
    summary: 'Generate a key pair and its did:key, kept in the key file (mode 0600)',
    details:
      'EdDSA (Ed25519, did:key z6Mk…) signs in to the service; ES256 (P-256, did:key zDn…) serves as a holder key for OpenID4VCI. The first key of a file becomes its default. The private key never leaves this machine.',
    options: {
      alg: { type: 'string', value: '<EdDSA|ES256>', description: 'Key algorithm (default EdDSA)' },
      name: { type: 'string', value: '<name>', description: 'Name to select it with --key (default key-N)' },
      default: { type: 'boolean', description: 'Make it the default key' },
    },
    examples: ['cps keys new --name issuer', 'cps keys new --name holder --alg EdDSA --default'],
    async run(ctx, { values }) {
      const alg = str(values, 'alg') ?? 'EdDSA'
      if (!(ALGS as readonly string[]).includes(alg)) throw new UsageError(`--alg must be EdDSA or ES256, not "${alg}"`)
      const file = ctx.keyFile()
      const name = str(values, 'name') ?? file.freeName()
      const key = await generateHolderKey({ alg: alg as (typeof ALGS)[number], extractable: true })
      const exported = await exportHolderKey(key)
      file.add({
        name,
        did: exported.did,
        alg: exported.alg,
        private_jwk: exported.privateJwk,
        created_at: new Date().toISOString(),
      })
      if (values.default) file.setDefault(name)
      ctx.out.result(
        { name, did: key.did, alg: key.alg, kid: key.kid, key_file: file.file, default: file.defaultName === name },
        [`${name}  ${key.did}`, `saved in ${file.file}${file.defaultName === name ? ' (default key)' : ''}`],
      )
    },
  },
  {
    path: ['keys', 'list'],
    summary: 'List the keys of the key file',
    async run(ctx) {
      const file = ctx.keyFile()
      const keys = file.keys.map((k) => ({
        name: k.name,
        did: k.did,
        alg: k.alg,
        default: k.name === file.defaultName,
        created_at: k.created_at,
      }))
      ctx.out.result({ key_file: file.file, keys }, () =>
        keys.length
          ? table(
              ['', 'NAME', 'ALG', 'DID'],
              keys.map((k) => [k.default ? '*' : '', k.name, k.alg, k.did]),
            )
          : [`no keys in ${file.file} (cps keys new)`],
      )
    },
  },
  {
    path: ['keys', 'show'],
    summary: 'Show the acting key: DID, key id and public JWK (never the private part)',
    positionals: [
      {
        name: 'name',
        description: 'Name or DID of a key in the key file (default: --key or the default key)',
        optional: true,
      },
    ],
    async run(ctx, { positionals }) {
      const key = positionals[0]
        ? await importHolderKey(ctx.keyFile().find(positionals[0]).private_jwk)
        : await ctx.holderKey()
      const stored =
        positionals[0] || !ctx.settings.privateJwk ? ctx.keyFile().find(positionals[0] ?? ctx.settings.key) : undefined
      const device = stored?.device_jwk ? (await importHolderKey(stored.device_jwk)).publicJwk : undefined
      ctx.out.result(
        {
          did: key.did,
          kid: key.kid,
          alg: key.alg,
          public_jwk: key.publicJwk,
          ...(device ? { device_public_jwk: device } : {}),
        },
        [
          `did:        ${key.did}`,
          `kid:        ${key.kid}`,
          `alg:        ${key.alg}`,
          `public JWK: ${JSON.stringify(key.publicJwk)}`,
          ...(device ? [`device key: ${JSON.stringify(device)} (P-256, the key its mdocs are bound to)`] : []),
        ],
      )
    },
  },
  {
    path: ['keys', 'use'],
    summary: 'Make a key of the key file the default',
    positionals: [{ name: 'name', description: 'Name or DID of the key' }],
    async run(ctx, { positionals }) {
      const key = ctx.keyFile().setDefault(positionals[0]!)
      ctx.out.result({ name: key.name, did: key.did, default: true }, [`default key: ${key.name}  ${key.did}`])
    },
  },
]

export const loginCommand: CommandSpec = {
  path: ['login'],
  summary: 'Sign in: a challenge from the service, signed here with the acting key, exchanged for a session token',
  details:
    'POST /api/auth/challenge, then POST /api/auth/verify-challenge with the Ed25519 signature. The token is cached per DID and service in sessions.json beside the key file (mode 0600); other commands sign in by themselves when it is missing or expired. --json prints the token too (for curl).',
  async run(ctx) {
    const { did, expiresAt, client } = await ctx.signedIn({ fresh: true })
    // The token goes to stdout under --json only, for scripts that call routes themselves (curl).
    ctx.out.result(
      {
        did,
        base_url: ctx.settings.baseUrl,
        token: client.session?.token,
        expires_at: expiresAt,
        sessions_file: ctx.sessions().file,
      },
      [`signed in as ${did}`, `session valid until ${expiresAt}`],
    )
  },
}
