import { Type, type Static } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { EvidenceAttachment, Label } from '../credentials/evidence-attachment.schemas.js'
import { FreeFormObject } from '../shared/free-form-json.js'

const RecordId = Type.String({ minLength: 1, maxLength: 100 })

/** The issued form (docs/formats.md); unset: `jwt_vc_json`, the VCDM 1.1 JWT-VC issued before formats. */
export const CredentialFormatId = Type.String({
  minLength: 1,
  maxLength: 50,
  description:
    'The credential format: jwt_vc_json (VCDM 1.1 JWT-VC, default), vc+jwt (VCDM 2.0 secured with VC-JOSE-COSE), dc+sd-jwt (SD-JWT VC)',
})

export const IssueBody = Type.Object(
  {
    credential_type: Type.String({ minLength: 1, maxLength: 100 }),
    schema_id: RecordId,
    subject_did: Type.Optional(Did),
    template_id: Type.Optional(RecordId),
    attributes: FreeFormObject({ maxProperties: 100 }),
    expiration_date: Type.Optional(Type.String({ format: 'date-time' })),
    evidence: Type.Optional(Type.Array(EvidenceAttachment, { maxItems: 20 })),
    evidence_required: Type.Optional(Type.Array(Label, { maxItems: 50 })),
    extensions: Type.Optional(Type.Array(Label, { maxItems: 50 })),
    format: Type.Optional(CredentialFormatId),
  },
  { additionalProperties: false },
)
export type IssueBody = Static<typeof IssueBody>

const Json = Type.Record(Type.String(), Type.Unknown())

/** A credential record as the issuer sees it (spec: Credential, both tables). */
export const CredentialRecord = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  issuer_name: Type.String(),
  owner_did: Type.Union([Type.String(), Type.Null()]),
  credential_type: Type.String(),
  schema_id: Type.String(),
  template_id: Type.Union([Type.String(), Type.Null()]),
  credential_preview: Json,
  credential_data: Json,
  status: Type.String(),
  signature_type: Type.String(),
  kyber_encrypted: Type.Boolean(),
  evidence_attachments: Type.Array(EvidenceAttachment),
  evidence_required: Type.Array(Type.String()),
  extensions: Type.Array(Type.String()),
  jwt: Type.String(),
  anonymous_credential: Type.Union([Json, Type.Null()]),
  bbs_signature: Type.Union([Type.String(), Type.Null()]),
  credential_hash: Type.String(),
  ipfs_hash: Type.String(),
  on_chain: Type.Boolean(),
  blockchain_tx_hash: Type.String(),
  revocation_blockchain_tx: Type.Union([Type.String(), Type.Null()]),
  credential_status: Type.Object({ status_list_credential: Type.String(), status_list_index: Type.String() }),
  expiration_date: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  format: Type.String({
    description:
      'The format of `jwt`, the issued credential: jwt_vc_json (VCDM 1.1 JWT-VC), vc+jwt (VCDM 2.0, VC-JOSE-COSE) or dc+sd-jwt (SD-JWT VC)',
  }),
  signing_did: Type.String({
    description:
      "The DID the credential names as its issuer and is signed by (the issuer profile's did:web or did:key); issuer_did is the login DID",
  }),
})

export const IssueResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  credential: Type.Object({
    credential: CredentialRecord,
    jwt: Type.String(),
    ipfs_hash: Type.String(),
    ipfs_gateway_url: Type.String(),
    credential_hash: Type.String(),
    blockchain_tx_hash: Type.String(),
    blockchain_tx: Type.String(),
    id: Type.String(),
    on_chain: Type.Boolean(),
  }),
})
