import { Type, type Static } from '@sinclair/typebox'
import { CHALLENGE_PURPOSES } from './challenge-codec.js'
import { FreeFormObject } from '../shared/free-form-json.js'

/** Request and response schemas of the auth group; responses double as fast serializers. */
export const Did = Type.String({ minLength: 7, maxLength: 2048, description: 'A DID, e.g. did:key:z6Mk…' })
const Challenge = Type.String({ minLength: 1, maxLength: 512 })
const Signature = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'Ed25519 signature over the UTF-8 challenge, base64 or base64url',
})
const Email = Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Literal('')])

export const ChallengeBody = Type.Object(
  {
    did: Did,
    purpose: Type.Optional(
      Type.Union(
        CHALLENGE_PURPOSES.map((p) => Type.Literal(p)),
        {
          description:
            'What the signature will be used for: login (default; also register and the wallet routes), encrypted-seed (fetching the seed), step-up (approvals)',
        },
      ),
    ),
  },
  { additionalProperties: false },
)
export const ProofBody = Type.Object(
  { did: Did, challenge: Challenge, signature: Signature },
  { additionalProperties: false },
)
export type ProofBody = Static<typeof ProofBody>

export const User = Type.Object({
  did: Type.String(),
  public_key: Type.String({ description: 'Multibase (base58btc) multicodec public key' }),
  name: Type.String(),
  email: Type.String(),
})

export const Profile = Type.Object({
  did: Type.String(),
  public_key: Type.String(),
  key_type: Type.String(),
  name: Type.String(),
  email: Type.String(),
  bio: Type.Union([Type.String(), Type.Null()]),
  avatar_cid: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  wallets: Type.Integer(),
  has_encrypted_seed: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_login_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

export const ChallengeResponse = Type.Object({
  success: Type.Boolean(),
  did: Type.String(),
  purpose: Type.String(),
  challenge: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
})

export const LoginResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  user: User,
  token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.String({ format: 'date-time' }),
})

export const RegisterBody = Type.Object(
  {
    did: Did,
    public_key: Type.String({
      minLength: 10,
      maxLength: 256,
      description: 'Ed25519 public key: multibase (z6Mk…), base58btc, or base64',
    }),
    challenge: Challenge,
    signature: Signature,
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Email),
  },
  { additionalProperties: false },
)
export type RegisterBody = Static<typeof RegisterBody>

export const GenerateDidBody = Type.Object(
  {
    private_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Ed25519 private key (32-byte seed) as hex, base64 or base64url',
      }),
    ),
    public_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Ed25519 public key; derives the DID without any private key',
      }),
    ),
  },
  { additionalProperties: false },
)

export const GenerateDidResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  did: Type.String(),
  public_key: Type.String(),
  public_key_base64: Type.String(),
  private_key: Type.Optional(Type.String({ description: 'Only when the server generated the key; never stored' })),
  did_document: Type.Record(Type.String(), Type.Unknown()),
})

export const ProfileUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Email),
    bio: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type ProfileUpdateBody = Static<typeof ProfileUpdateBody>

const WalletType = Type.Union(['web', 'mobile', 'extension', 'desktop', 'hardware'].map((t) => Type.Literal(t)))
const Metadata = FreeFormObject({ maxProperties: 32 })
const SeedBlob = Type.String({
  minLength: 16,
  maxLength: 65536,
  description: 'Client-encrypted seed, base64/base64url; the server cannot read it',
})
const SeedEncryption = Type.Object(
  { algorithm: Type.String({ minLength: 1, maxLength: 64 }) },
  {
    additionalProperties: Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()]),
    maxProperties: 16,
  },
)

export const Wallet = Type.Object({
  id: Type.String(),
  did: Type.String(),
  wallet_name: Type.String(),
  wallet_type: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
  last_login_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

export const CreateWalletBody = Type.Object(
  {
    did: Did,
    challenge: Challenge,
    signature: Signature,
    public_key: Type.Optional(Type.String({ minLength: 10, maxLength: 256 })),
    wallet_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    wallet_type: Type.Optional(WalletType),
    metadata: Type.Optional(Metadata),
    encrypted_seed: Type.Optional(SeedBlob),
    encryption: Type.Optional(SeedEncryption),
  },
  { additionalProperties: false },
)
export type CreateWalletBody = Static<typeof CreateWalletBody>

export const LoginWalletBody = Type.Object(
  {
    did: Did,
    challenge: Challenge,
    signature: Signature,
    wallet_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
)
export type LoginWalletBody = Static<typeof LoginWalletBody>

export const PutSeedBody = Type.Object(
  {
    encrypted_seed: SeedBlob,
    encryption: SeedEncryption,
    // The column is a PostgreSQL integer: a larger number could only fail in the database (500).
    expected_version: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_147_483_647,
        description: 'Optimistic concurrency: 0 = must not exist yet',
      }),
    ),
  },
  { additionalProperties: false },
)
export type PutSeedBody = Static<typeof PutSeedBody>

export const SeedResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  did: Type.String(),
  encrypted_seed: Type.Optional(Type.String()),
  encryption: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  version: Type.Integer(),
  updated_at: Type.String({ format: 'date-time' }),
})
