import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { generateEd25519 } from '../../crypto/ed25519.js'
import { toBase64Url } from '../../crypto/encoding.js'
import { ed25519DidKey } from '../did/methods/registered-methods.js'
import type { AdminService } from './admin.service.js'
import { Did } from '../auth/auth.schemas.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'

const KeyInfo = Type.Object({
  kid: Type.String(),
  owner: Type.String(),
  purpose: Type.String(),
  algorithm: Type.String(),
  public_key: Type.String({ description: 'base64url' }),
  status: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  retired_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})
const errors = {
  400: { $ref: 'ErrorResponse#' },
  401: { $ref: 'ErrorResponse#' },
  404: { $ref: 'ErrorResponse#' },
  409: { $ref: 'ErrorResponse#' },
}
const tags = ['Admin']
const security = [{ adminKey: [] }]

/** Operator routes, guarded by X-Admin-Key (ADMIN_API_KEY); absent key: the group is 404. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ admin: AdminService; idempotency: IdempotencyService }> = async (
  app,
  { admin, idempotency },
) => {
  app.post(
    '/generate-did',
    {
      schema: {
        tags,
        security,
        summary: 'Generate an Ed25519 did:key pair (returned once, not stored)',
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            did: Type.String(),
            public_key: Type.String(),
            private_key: Type.String(),
            did_document: Type.Record(Type.String(), Type.Unknown()),
          }),
          ...errors,
        },
      },
    },
    async () => {
      const pair = generateEd25519()
      const { did, publicKeyMultibase, document } = ed25519DidKey(pair.publicKey)
      return {
        success: true,
        did,
        public_key: publicKeyMultibase,
        private_key: toBase64Url(pair.privateKey),
        did_document: document as Record<string, unknown>,
      }
    },
  )

  app.get(
    '/keys',
    {
      schema: {
        tags,
        security,
        summary: 'Service and issuer keys (public halves only)',
        querystring: Type.Object({
          owner: Type.Optional(Type.String({ maxLength: 2048 })),
          purpose: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: { 200: Type.Object({ success: Type.Boolean(), keys: Type.Array(KeyInfo) }), ...errors },
      },
    },
    async (request) => ({
      success: true,
      keys: (await admin.listKeys(request.query.owner, request.query.purpose)).map(keyBody),
    }),
  )

  app.post(
    '/keys/rotate',
    {
      schema: {
        tags,
        security,
        summary: 'Key migration: rotate a key; the old public key stays valid for verification',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first rotation instead of rotating again; another body 422; while the first is in progress 409.',
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            owner: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
            purpose: Type.String({ minLength: 1, maxLength: 64 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            active: KeyInfo,
            retired: Type.Union([KeyInfo, Type.Null()]),
          }),
          ...errors,
          422: { $ref: 'ErrorResponse#' },
        },
      },
    },
    async (request) => {
      // The operator's key names no DID: its Idempotency-Keys belong to the operator as one caller.
      const {
        body: { active, retired },
      } = await idempotency.run(
        keyedRequest(request, { caller: 'admin' }),
        (claim) => admin.rotateKey(request.body.owner ?? 'service', request.body.purpose, claim),
        (resourceId) => admin.replayRotation(resourceId),
      )
      return {
        success: true,
        message: 'Key rotated',
        active: keyBody(active),
        retired: retired ? keyBody(retired) : null,
      }
    },
  )

  app.post(
    '/holders/register',
    {
      schema: {
        tags,
        security,
        summary: "Register a holder DID and its Ed25519 key on the operator's word (no signature needed)",
        body: Type.Object(
          {
            did: Did,
            public_key: Type.String({ minLength: 10, maxLength: 256 }),
            name: Type.Optional(Type.String({ maxLength: 200 })),
            email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Literal('')])),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            user: Type.Object({
              did: Type.String(),
              public_key: Type.String(),
              name: Type.String(),
              email: Type.String(),
            }),
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const user = await admin.registerHolder(request.body)
      return reply.status(201).send({
        success: true,
        message: 'Holder DID registered',
        user: { did: user.did, public_key: user.public_key, name: user.name, email: user.email },
      })
    },
  )
}

function keyBody(k: import('../keys/key-store.js').PublicKeyInfo) {
  return {
    kid: k.kid,
    owner: k.owner,
    purpose: k.purpose,
    algorithm: k.algorithm,
    public_key: toBase64Url(k.publicKey),
    status: k.status,
    created_at: k.createdAt.toISOString(),
    retired_at: k.retiredAt ? k.retiredAt.toISOString() : null,
  }
}
