import { randomBytes, randomUUID, sign } from 'node:crypto'
import type { DidClient } from './did-client.js'

/**
 * A JWT-VC (jwt_vc_json) signed by any did:key outside this service, built by hand the way an
 * external issuer would (DESIGN.md "Credential formats"), so imports are tested against
 * credentials this service's own code did not make.
 */
export function foreignCredential(
  issuer: DidClient,
  options: {
    subject?: string | null
    sub?: string | null
    type?: string
    attributes?: Record<string, unknown>
    jti?: string | null
    exp?: number
    nbf?: number
    issuerName?: string
    status?: Record<string, unknown>
    vc?: Record<string, unknown> | null
  } = {},
): string {
  const now = Math.floor(Date.now() / 1000)
  const subject: Record<string, unknown> = { ...(options.attributes ?? { given_name: 'Ada', level: 3 }) }
  if (options.subject !== null && options.subject !== undefined) subject.id = options.subject
  const vc = {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiableCredential', options.type ?? 'ExternalBadge'],
    issuer: options.issuerName ? { id: issuer.did, name: options.issuerName } : issuer.did,
    issuanceDate: new Date((options.nbf ?? now) * 1000).toISOString(),
    credentialSubject: subject,
    ...(options.status ? { credentialStatus: options.status } : {}),
  }
  const payload: Record<string, unknown> = { iss: issuer.did, iat: options.nbf ?? now, nbf: options.nbf ?? now }
  if (options.vc !== null) payload.vc = options.vc ?? vc
  const sub = options.sub === undefined ? options.subject : options.sub
  if (sub) payload.sub = sub
  if (options.jti !== null) payload.jti = options.jti ?? `urn:uuid:${randomUUID()}`
  if (options.exp !== undefined) payload.exp = options.exp
  return signJwt(issuer, payload)
}

export function signJwt(signer: DidClient, payload: Record<string, unknown>): string {
  const header = { alg: 'EdDSA', typ: 'JWT', kid: `${signer.did}#${signer.did.slice('did:key:'.length)}` }
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(null, Buffer.from(input), signer.privateKey).toString('base64url')}`
}

/** The same JWT with one payload claim changed and the original signature kept. */
export function tamper(jwt: string, change: (payload: Record<string, unknown>) => void): string {
  const [h, p, s] = jwt.split('.') as [string, string, string]
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'))
  change(payload)
  return `${h}.${b64(payload)}.${s}`
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

export type Part =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Uint8Array }

/** A multipart/form-data body for app.inject. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----wallet-test-${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`))
    if ('value' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`))
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        ),
      )
      chunks.push(Buffer.from(part.data), Buffer.from('\r\n'))
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

/** A small valid PDF-looking file (the signature is what the upload checks). */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
)
