import type {} from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ed25519FromSeed, generateEd25519 } from '../../crypto/ed25519.js'
import { decodeBase64Any, toBase64, toBase64Url } from '../../crypto/encoding.js'
import { AppError, UnsupportedMediaTypeError, ValidationError } from '../../errors.js'
import { ed25519DidKey } from '../did/methods/registered-methods.js'
import type { SeedRow, WalletRow } from './wallets.repository.js'
import type { UserRow, UserSummary } from './users.repository.js'
import type { AuthService, Session } from './auth.service.js'
import * as S from './auth.schemas.js'
import { decodePublicKeyText } from './public-key-text.js'

export interface AuthRoutesOptions {
  auth: AuthService
  publicBaseUrl: string
}

const errorResponses = {
  400: { $ref: 'ErrorResponse#' },
  401: { $ref: 'ErrorResponse#' },
  403: { $ref: 'ErrorResponse#' },
  404: { $ref: 'ErrorResponse#' },
  409: { $ref: 'ErrorResponse#' },
}
const tags = ['Auth']

export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { auth, publicBaseUrl }) => {
  app.post(
    '/challenge',
    {
      schema: {
        tags,
        summary: 'Get a single-use login challenge for a DID',
        body: S.ChallengeBody,
        response: { 200: S.ChallengeResponse, ...errorResponses },
      },
      config: { rateLimit: 'auth' },
    },
    async (request) => {
      const purpose = request.body.purpose ?? 'login'
      const { did, challenge, expiresAt } = auth.createChallenge(request.body.did, purpose)
      return { success: true, did, purpose, challenge, expires_at: expiresAt.toISOString() }
    },
  )

  for (const path of ['/verify-challenge', '/login']) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary: 'Sign in with a signed challenge',
          body: S.ProofBody,
          response: { 200: S.LoginResponse, ...errorResponses },
        },
        config: { rateLimit: 'auth' },
      },
      async (request) => loginBody(await auth.login(request.body), 'Login successful'),
    )
  }

  app.post(
    '/register',
    {
      schema: {
        tags,
        summary: 'Register a DID of another method with its Ed25519 key (proved by a signed challenge)',
        body: S.RegisterBody,
        response: { 201: S.LoginResponse, ...errorResponses },
      },
      config: { rateLimit: 'auth' },
    },
    async (request, reply) => {
      const session = await auth.register(request.body)
      return reply.status(201).send(loginBody(session, 'DID registered'))
    },
  )

  app.post(
    '/generate-did',
    {
      schema: {
        tags,
        summary: 'Derive a did:key (from a public or private key) or generate a fresh key pair; nothing is stored',
        body: Type.Optional(S.GenerateDidBody),
        response: { 200: S.GenerateDidResponse, ...errorResponses },
      },
      config: { rateLimit: 'auth' },
    },
    async (request) => generateDid(request.body ?? {}),
  )

  app.get(
    '/me',
    {
      schema: {
        tags,
        summary: 'The authenticated user',
        response: { 200: Type.Object({ success: Type.Boolean(), user: S.User }), ...errorResponses },
      },
    },
    async (request) => ({ success: true, user: userBody(await auth.me(request.auth!.did)) }),
  )

  app.get(
    '/profile',
    {
      schema: {
        tags,
        summary: 'Profile of the authenticated DID',
        response: { 200: Type.Object({ success: Type.Boolean(), profile: S.Profile }), ...errorResponses },
      },
    },
    async (request) => ({ success: true, profile: profileBody(await auth.profile(request.auth!.did), publicBaseUrl) }),
  )

  app.put(
    '/profile',
    {
      schema: {
        tags,
        summary: 'Update name, e-mail or bio',
        body: S.ProfileUpdateBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String(), profile: S.Profile }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await auth.updateProfile(request.auth!.did, request.body)
      return {
        success: true,
        message: 'Profile updated',
        profile: profileBody(await auth.profile(request.auth!.did), publicBaseUrl),
      }
    },
  )

  app.post(
    '/avatar',
    {
      schema: {
        tags,
        summary: 'Upload an avatar image (multipart/form-data, one file; PNG, JPEG, GIF or WebP)',
        consumes: ['multipart/form-data'],
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            avatar: Type.Object({
              cid: Type.String(),
              url: Type.String(),
              content_type: Type.String(),
              size: Type.Integer(),
            }),
          }),
          ...errorResponses,
          413: { $ref: 'ErrorResponse#' },
          415: { $ref: 'ErrorResponse#' },
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new UnsupportedMediaTypeError('Send the image as multipart/form-data')
      const { bytes, mimetype } = await readAvatar(request)
      const avatar = await auth.setAvatar(request.auth!.did, bytes, mimetype)
      return reply.status(201).send({
        success: true,
        message: 'Avatar updated',
        avatar: {
          cid: avatar.cid,
          url: `${publicBaseUrl}/api/ipfs/${avatar.cid}`,
          content_type: avatar.contentType,
          size: avatar.size,
        },
      })
    },
  )

  app.post(
    '/create-wallet',
    {
      schema: {
        tags,
        summary: 'Bind a wallet to a DID with a signed challenge; signs in',
        body: S.CreateWalletBody,
        response: { 201: Type.Composite([S.LoginResponse, Type.Object({ wallet: S.Wallet })]), ...errorResponses },
      },
      config: { rateLimit: 'auth' },
    },
    async (request, reply) => {
      const result = await auth.createWallet(request.body)
      return reply.status(201).send({ ...loginBody(result, 'Wallet created'), wallet: walletBody(result.wallet) })
    },
  )

  app.post(
    '/login-wallet',
    {
      schema: {
        tags,
        summary: 'Sign in to an existing wallet with a signed challenge',
        body: S.LoginWalletBody,
        response: {
          200: Type.Composite([S.LoginResponse, Type.Object({ wallets: Type.Array(S.Wallet) })]),
          ...errorResponses,
        },
      },
      config: { rateLimit: 'auth' },
    },
    async (request) => {
      const result = await auth.loginWallet(request.body)
      return { ...loginBody(result, 'Wallet login successful'), wallets: result.wallets.map(walletBody) }
    },
  )

  app.post(
    '/wallet/encrypted-seed',
    {
      schema: {
        tags,
        summary: 'Store the client-encrypted wallet seed (opaque to the server)',
        body: S.PutSeedBody,
        response: { 200: S.SeedResponse, 201: S.SeedResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { row, created } = await auth.putEncryptedSeed(request.auth!.did, request.body)
      return reply
        .status(created ? 201 : 200)
        .send({ ...seedBody(row, false), message: created ? 'Encrypted seed stored' : 'Encrypted seed updated' })
    },
  )

  app.post(
    '/wallet/encrypted-seed/get',
    {
      schema: {
        tags,
        summary: 'Fetch the encrypted seed: needs a fresh signed challenge',
        body: S.ProofBody,
        response: { 200: S.SeedResponse, ...errorResponses },
      },
      config: { rateLimit: 'auth' },
    },
    async (request) => ({ ...seedBody(await auth.getEncryptedSeed(request.body), true), message: 'Encrypted seed' }),
  )
}

/**
 * The one file of an avatar upload. A body busboy cannot parse (no boundary, cut short) throws a
 * plain Error with no status, which would be a 500: it is the client's malformed request (400).
 * Errors that carry a 4xx status (the file size limit: 413) pass through to the error handler.
 */
async function readAvatar(request: FastifyRequest): Promise<{ bytes: Buffer; mimetype: string }> {
  try {
    const file = await request.file()
    if (!file) throw new ValidationError('No file in the upload')
    return { bytes: await file.toBuffer(), mimetype: file.mimetype }
  } catch (error) {
    const status = (error as { statusCode?: unknown }).statusCode
    if (error instanceof AppError || (typeof status === 'number' && status >= 400 && status < 500)) throw error
    throw new ValidationError('The multipart body could not be read', { cause: error })
  }
}

function loginBody(session: Session, message: string) {
  return {
    success: true,
    message,
    user: userBody(session.user),
    token: session.token,
    token_type: 'Bearer' as const,
    expires_at: session.expiresAt.toISOString(),
  }
}

function userBody(user: UserSummary) {
  return { did: user.did, public_key: user.public_key, name: user.name, email: user.email }
}

function profileBody({ user, wallets, hasSeed }: { user: UserRow; wallets: number; hasSeed: boolean }, base: string) {
  return {
    ...userBody(user),
    key_type: user.key_type,
    bio: user.bio,
    avatar_cid: user.avatar_cid,
    avatar_url: user.avatar_cid ? `${base}/api/ipfs/${user.avatar_cid}` : null,
    wallets,
    has_encrypted_seed: hasSeed,
    created_at: new Date(user.created_at).toISOString(),
    updated_at: new Date(user.updated_at).toISOString(),
    last_login_at: user.last_login_at ? new Date(user.last_login_at).toISOString() : null,
  }
}

function walletBody(w: WalletRow) {
  return {
    ...w,
    created_at: new Date(w.created_at).toISOString(),
    last_login_at: w.last_login_at ? new Date(w.last_login_at).toISOString() : null,
  }
}

function seedBody(row: SeedRow, withSecret: boolean) {
  return {
    success: true,
    did: row.did,
    ...(withSecret ? { encrypted_seed: row.encrypted_seed, encryption: row.encryption } : {}),
    version: row.version,
    updated_at: new Date(row.updated_at).toISOString(),
  }
}

/** The spec's generate-did: "optionally from a private key". Keys given are used, never kept. */
function generateDid(body: { private_key?: string; public_key?: string }) {
  if (body.private_key !== undefined && body.public_key !== undefined) {
    throw new ValidationError('Give private_key or public_key, not both')
  }
  let publicKey: Uint8Array
  let privateKey: string | undefined
  let message: string
  if (body.private_key !== undefined) {
    const seed = /^[0-9a-fA-F]{64}$/.test(body.private_key)
      ? Buffer.from(body.private_key, 'hex')
      : decodeBase64Any(body.private_key)
    if (seed?.length !== 32)
      throw new ValidationError('private_key must be a 32-byte Ed25519 seed as hex, base64 or base64url')
    publicKey = ed25519FromSeed(seed).publicKey
    message = 'DID derived from the private key (not stored)'
  } else if (body.public_key !== undefined) {
    publicKey = decodePublicKeyText(body.public_key)
    message = 'DID derived from the public key'
  } else {
    const pair = generateEd25519()
    publicKey = pair.publicKey
    privateKey = toBase64Url(pair.privateKey)
    message = 'New Ed25519 key pair generated; the server kept no copy of the private key'
  }
  const { did, publicKeyMultibase, document } = ed25519DidKey(publicKey)
  return {
    success: true,
    message,
    did,
    public_key: publicKeyMultibase,
    public_key_base64: toBase64(publicKey),
    ...(privateKey ? { private_key: privateKey } : {}),
    did_document: document as Record<string, unknown>,
  }
}
