import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from './did-client.js'

export const DEGREE_SCHEMA = {
  name: 'University Degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'birth_date', data_type: 'date', required: true },
    { name: 'gpa', data_type: 'number' },
    { name: 'graduated', data_type: 'boolean' },
    { name: 'email', data_type: 'email' },
    { name: 'homepage', data_type: 'url' },
    { name: 'thesis', data_type: 'file' },
    { name: 'address', data_type: 'object' },
    { name: 'courses', data_type: 'array' },
  ],
  evidence_allowed: true,
  allowed_evidence: ['transcript'],
  extensions_allowed: true,
  allowed_extensions: ['honours'],
}

/**
 * A small degree schema issued as JWT-VC only: BBS signing would only slow the tests that use it
 * down (races, crashes, consents), it takes no part in them.
 */
export const JWT_DEGREE_SCHEMA = {
  name: 'Degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'gpa', data_type: 'number', required: true },
  ],
  anonymous_credentials: false,
}

/** A logged-in DID with an issuer profile, and a helper to call its routes over HTTP. */
export class IssuerActor extends DidClient {
  token = ''

  async setUp(app: FastifyInstance, name = 'Uni'): Promise<this> {
    this.token = await this.login(app)
    const res = await app.inject({ method: 'POST', url: '/api/issuer', headers: bearer(this.token), payload: { name } })
    if (res.statusCode !== 201) throw new Error(`issuer profile: ${res.statusCode} ${res.body}`)
    return this
  }

  async schema(app: FastifyInstance, body: object = DEGREE_SCHEMA): Promise<string> {
    const res = await app.inject({
      method: 'POST',
      url: `/api/issuer/${this.did}/schemas`,
      headers: bearer(this.token),
      payload: body,
    })
    if (res.statusCode !== 201) throw new Error(`schema: ${res.statusCode} ${res.body}`)
    return res.json().schema.id
  }
}

export async function callAs(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token?: string,
  payload?: unknown,
) {
  return app.inject({
    method,
    url,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}
