import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { decodeBase64Any } from '../../crypto/encoding.js'
import { NotFoundError, ValidationError } from '../../errors.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { HolderKemKeys } from './holder-kem-keys.js'

const KeyView = Type.Object({
  public_key: Type.String(),
  custody: Type.String(),
  algorithm: Type.String(),
  updated_at: Type.String(),
})

/**
 * The ML-KEM-768 key credential material is sealed to. GET shows it (custody `service` until
 * the holder registers its own); PUT registers the holder's own public key, after which only the
 * holder can open newly issued material.
 */
export const encryptionKeyRoutes: FastifyPluginAsyncTypebox<{ holderKeys: HolderKemKeys }> = async (
  app,
  { holderKeys },
) => {
  const params = Type.Object({ did: Did })
  app.get(
    '/:did/encryption-key',
    {
      schema: {
        tags: ['Wallet'],
        summary: 'The ML-KEM-768 key credentials are sealed to',
        params,
        response: { 200: Type.Object({ success: Type.Boolean(), key: KeyView }), ...errorRefs(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const key = await holderKeys.describe(request.auth!.did)
      if (!key)
        throw new NotFoundError('No encryption key yet: one is made with the first credential, or register your own')
      return { success: true, key }
    },
  )

  app.put(
    '/:did/encryption-key',
    {
      schema: {
        tags: ['Wallet'],
        summary: "Register the holder's own ML-KEM-768 public key (base64url, 1184 bytes)",
        params,
        body: Type.Object(
          { public_key: Type.String({ minLength: 1, maxLength: 2000 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), key: KeyView }),
          ...errorRefs(400, 401, 403),
        },
      },
    },
    async (request) => {
      const bytes = decodeBase64Any(request.body.public_key)
      if (!bytes) throw new ValidationError('public_key must be base64url')
      await holderKeys.register(request.auth!.did, bytes)
      return {
        success: true,
        message: 'Encryption key registered: new credentials are sealed to it',
        key: (await holderKeys.describe(request.auth!.did))!,
      }
    },
  )
}
