import { Type } from '@sinclair/typebox'

/** A short name: an evidence label, a required evidence type, an extension. */
export const Label = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._:/-]*$' })

/** A file attached to a credential as evidence, stored in the content store. */
export const EvidenceAttachment = Type.Object(
  {
    label: Label,
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    ipfs_hash: Type.String({ minLength: 1, maxLength: 200 }),
    gateway_url: Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' }),
    content_type: Type.String({ maxLength: 255, pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$' }),
    size: Type.Integer({ minimum: 0, maximum: 1_073_741_824 }),
  },
  { additionalProperties: false },
)
