import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { base58btc } from 'multiformats/bases/base58'

/**
 * A holder as the outside world sees it: its own Ed25519 key, its did:key, and the
 * challenge-signature login done over HTTP. Independent of the service's own did:key code.
 */
export class DidClient {
  readonly did: string
  readonly publicKey: Uint8Array
  readonly privateKey: KeyObject

  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    this.privateKey = privateKey
    this.publicKey = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
    this.did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...this.publicKey]))}`
  }

  sign(message: string): string {
    return sign(null, Buffer.from(message, 'utf8'), this.privateKey).toString('base64')
  }

  async challenge(
    app: FastifyInstance,
    did = this.did,
    purpose?: 'login' | 'encrypted-seed' | 'step-up',
  ): Promise<string> {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      payload: purpose ? { did, purpose } : { did },
    })
    if (res.statusCode !== 200) throw new Error(`challenge failed: ${res.statusCode} ${res.body}`)
    return res.json().challenge
  }

  /** A fresh signed proof {did, challenge, signature}. */
  async proof(
    app: FastifyInstance,
    did = this.did,
    purpose?: 'login' | 'encrypted-seed' | 'step-up',
  ): Promise<{ did: string; challenge: string; signature: string }> {
    const challenge = await this.challenge(app, did, purpose)
    return { did, challenge, signature: this.sign(challenge) }
  }

  async login(app: FastifyInstance): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/api/auth/verify-challenge', payload: await this.proof(app) })
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`)
    return res.json().token
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
