import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { normalizeDid } from '../did/did-normalize.js'
import { errorRefs } from '../shared/route-helpers.js'
import * as S from './certificates.schemas.js'
import type { CertificateService, CertificateView } from './certificates.service.js'
import type { IssuerLeafService } from './issuer-leaves.service.js'
import type { OutsideIacaService } from './outside-iaca.service.js'

const tags = ['Certificates']
const DidParams = Type.Object({ did: Did })
const errors = errorRefs(400, 401, 403, 404, 409, 422)

/** An issuer's mdoc certificates (docs/certificates.md); all but the listing act on the caller's own. */
export const certificateRoutes: FastifyPluginAsyncTypebox<{
  certificates: CertificateService
  outside: OutsideIacaService
  leaves: IssuerLeafService
}> = async (app, { certificates, outside, leaves }) => {
  app.get(
    '/:did/certificates',
    {
      schema: {
        tags,
        summary: "The issuer's certificates: IACA root, mdoc Document Signer, credential and metadata leaves (public)",
        description: 'Made on first use. Retired certificates stay listed for the credentials they signed.',
        params: DidParams,
        response: { 200: S.CertificateList, ...errorRefs(400, 404) },
      },
    },
    async (request) => ({
      certificates: (await leaves.list(normalizeDid(request.params.did))).map(isoDates),
    }),
  )

  app.post(
    '/:did/certificates/document-signer',
    {
      schema: {
        tags,
        summary: 'Import a Document Signer certificate and key issued by an outside IACA',
        params: DidParams,
        body: S.ImportBody,
        response: { 201: S.CertificateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const certificate = await outside.importDocumentSigner(request.auth!.did, request.body)
      return reply.status(201).send({ success: true, certificate: isoDates(certificate) })
    },
  )

  app.post(
    '/:did/certificates/csr',
    {
      schema: {
        tags,
        summary: 'A PKCS#10 request for a Document Signer certificate from an outside IACA',
        params: DidParams,
        response: { 200: S.CsrAnswer, ...errors },
      },
    },
    async (request) => ({ csr_pem: await outside.createRequest(request.auth!.did) }),
  )

  app.post(
    '/:did/certificates/csr/certificate',
    {
      schema: {
        tags,
        summary: 'The Document Signer certificate the outside IACA made from the pending CSR',
        params: DidParams,
        body: S.SignedCertificateBody,
        response: { 201: S.CertificateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const certificate = await outside.acceptCertificate(request.auth!.did, request.body)
      return reply.status(201).send({ success: true, certificate: isoDates(certificate) })
    },
  )

  app.post(
    '/:did/certificates/rotate',
    {
      schema: {
        tags,
        summary: 'A new Document Signer from the issuer’s own IACA now; the old one is retired',
        params: DidParams,
        response: { 201: S.CertificateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const certificate = await certificates.rotate(request.auth!.did)
      return reply.status(201).send({ success: true, certificate: isoDates(certificate) })
    },
  )
}

function isoDates(c: CertificateView) {
  return { ...c, not_before: c.not_before.toISOString(), not_after: c.not_after.toISOString() }
}
