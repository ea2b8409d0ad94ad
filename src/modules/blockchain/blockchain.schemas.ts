import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'

/** TypeBox shapes of the blockchain routes (bodies, params, answers). */
export const Sha256Hex = Type.String({
  pattern: '^(0x)?[0-9a-fA-F]{64}$',
  description: 'SHA-256 digest, 64 hex characters (0x optional)',
})
export const Purpose = Type.String({ minLength: 1, maxLength: 500 })
const RecordId = Type.String({ minLength: 1, maxLength: 200 })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])
const AnchoringState = Type.Union([
  Type.Literal('queued'),
  Type.Literal('sent'),
  Type.Literal('mined'),
  Type.Literal('failed'),
])

export const CredentialBody = Type.Object(
  { issuer_did: Did, credential_hash: Sha256Hex, credential_id: Type.Optional(RecordId) },
  { additionalProperties: false },
)
export const SchemaBody = Type.Object(
  { issuer_did: Did, schema_id: RecordId, schema_hash: Sha256Hex },
  { additionalProperties: false },
)
export const ConsentBody = Type.Object(
  {
    user_did: Did,
    verifier_did: Did,
    purpose: Purpose,
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    consent_id: Type.Optional(RecordId),
  },
  { additionalProperties: false },
)
export const ConsentRevokeBody = Type.Object(
  { user_did: Did, verifier_did: Did, purpose: Purpose, consent_id: Type.Optional(RecordId) },
  { additionalProperties: false },
)

export const CredentialCheckParams = Type.Object({ did: Did, credential_hash: Sha256Hex })
export const ConsentCheckParams = Type.Object({ user_did: Did, verifier_did: Did, purpose: Purpose })
export const SchemaCheckParams = Type.Object({ schema_id: RecordId })

const ChainRead = Type.Object({
  verified_on_chain: Type.Boolean({
    description: 'the registry answered a live read; false: from the service records only',
  }),
  registrant: Type.String({ description: 'the anchoring account the records are kept under' }),
  contract: Type.String(),
  error: Type.Optional(Type.String()),
})

export const CredentialAnchor = Type.Object({
  issuer_did: Type.String(),
  credential_hash: Type.String(),
  anchoring: AnchoringState,
  on_chain: Type.Boolean(),
  revoked: Type.Boolean(),
  blockchain_tx_hash: Nullable(Type.String()),
  block_number: Nullable(Type.Integer()),
  revocation: Nullable(
    Type.Object({
      anchoring: AnchoringState,
      blockchain_tx_hash: Nullable(Type.String()),
      block_number: Nullable(Type.Integer()),
    }),
  ),
  merkle: Nullable(
    Type.Object(
      {
        format: Type.Union([Type.Literal('standard-v1'), Type.Literal('legacy-v1')], {
          description: "the batch's tree: OpenZeppelin StandardMerkleTree, or the version-1 tree of older batches",
        }),
        root: Type.String(),
        leaf: Type.String(),
        leaf_index: Type.Integer({
          description: 'index of the value in its batch (StandardMerkleTree getProof index)',
        }),
        batch_size: Type.Integer(),
        leaf_encoding: Type.Optional(
          Type.Array(Type.String(), { description: "StandardMerkleTree leaf encoding: ['bytes32', 'bytes32']" }),
        ),
        value: Type.Array(Type.String(), { description: '[keccak256(issuer DID), credential_hash] as bytes32' }),
        proof: Type.Array(Type.String(), { description: 'StandardMerkleTree proof: sibling hashes, leaf to root' }),
      },
      { description: 'StandardMerkleTree.verify(root, leaf_encoding, value, proof) holds (docs/blockchain.md)' },
    ),
  ),
  chain: ChainRead,
})

export const SchemaAnchor = Type.Object({
  issuer_did: Type.String(),
  schema_id: Type.String(),
  schema_hash: Type.String(),
  anchoring: AnchoringState,
  on_chain: Type.Boolean(),
  blockchain_tx: Nullable(Type.String()),
  block_number: Nullable(Type.Integer()),
})

export const SchemaOnChain = Type.Object({
  schema_id: Type.String(),
  issuer: Type.String({ description: 'keccak256 of the issuer DID' }),
  schema_hash: Type.String(),
  versions: Type.Integer(),
  registered_at: Nullable(Type.String()),
  chain: ChainRead,
})

export const ConsentAnchor = Type.Object({
  user_did: Type.String(),
  verifier_did: Type.String(),
  purpose: Type.String(),
  consent_key: Type.String({ description: 'the only value stored on chain' }),
  consent_salt: Type.String({ description: 'with the three values, recomputes consent_key (docs/blockchain.md)' }),
  anchoring: AnchoringState,
  on_chain: Type.Boolean(),
  granted: Type.Boolean(),
  revoked: Type.Boolean(),
  valid: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  blockchain_tx: Nullable(Type.String()),
  chain: ChainRead,
})

export const ChainStatus = Type.Object({
  configured: Type.Boolean(),
  reachable: Type.Boolean(),
  chain_id: Type.Optional(Nullable(Type.Integer())),
  block_number: Type.Optional(Nullable(Type.Integer())),
  account: Type.Optional(Type.String()),
  contracts: Type.Optional(
    Type.Object({
      credential_registry: Type.String(),
      schema_registry: Type.String(),
      consent_registry: Type.String(),
      credential_registry_v1: Type.Optional(
        Type.String({ description: 'where batches of the version-1 tree stay, after an upgrade' }),
      ),
    }),
  ),
  batch: Type.Optional(Type.Object({ max_size: Type.Integer(), max_wait_ms: Type.Integer() })),
  outbox: Type.Optional(
    Type.Object({
      pending: Type.Integer(),
      sent: Type.Integer(),
      mined: Type.Integer(),
      failed: Type.Integer(),
      unbatched_credentials: Type.Integer(),
    }),
  ),
})

export const answer = <T extends Parameters<typeof Type.Object>[0][string]>(data: T) =>
  Type.Object({ success: Type.Boolean(), message: Type.Optional(Type.String()), data })
