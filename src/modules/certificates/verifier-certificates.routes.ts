import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Did } from '../auth/auth.schemas.js'
import { normalizeDid } from '../did/did-normalize.js'
import { errorRefs } from '../shared/route-helpers.js'
import * as S from './verifier-certificates.schemas.js'
import type { VerifierCertificateService, VerifierCertificateView } from './verifier-certificates.service.js'
import type { VerifierOutsideCaService } from './verifier-outside-ca.service.js'

const tags = ['Certificates']
const DidParams = Type.Object({ did: Did })
const errors = errorRefs(400, 401, 403, 404, 409, 422)

/** A verifier's access certificates (docs/adr/0044-verifier-certificates.md); all but the listing act on the caller's own. */
export const verifierCertificateRoutes: FastifyPluginAsyncTypebox<{
  certificates: VerifierCertificateService
  outside: VerifierOutsideCaService
}> = async (app, { certificates, outside }) => {
  app.get(
    '/:did/certificates',
    {
      schema: {
        tags,
        summary: "The verifier's access certificate chain (public): what wallets trust for x509_san_dns and x509_hash",
        description:
          'Made on first use for a verifier profile. Retired certificates stay listed. 404 for a DID with no profile and no certificates.',
        params: DidParams,
        response: { 200: S.VerifierCertificateList, ...errorRefs(400, 404) },
      },
    },
    async (request) => ({
      certificates: (await certificates.list(normalizeDid(request.params.did))).map(isoDates),
    }),
  )

  app.post(
    '/:did/certificates/access',
    {
      schema: {
        tags,
        summary: 'Import an access certificate, its key and its chain from an outside CA',
        params: DidParams,
        body: S.ImportAccessBody,
        response: { 201: S.VerifierCertificateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const certificate = await outside.importAccess(request.auth!.did, request.body)
      return reply.status(201).send({ success: true, certificate: isoDates(certificate) })
    },
  )

  app.post(
    '/:did/certificates/csr',
    {
      schema: {
        tags,
        summary: 'A PKCS#10 request for an access certificate from an outside CA',
        params: DidParams,
        response: { 200: S.AccessCsrAnswer, ...errors },
      },
    },
    async (request) => ({ csr_pem: await outside.createRequest(request.auth!.did) }),
  )

  app.post(
    '/:did/certificates/csr/certificate',
    {
      schema: {
        tags,
        summary: 'The access certificate the outside CA made from the pending CSR, with its chain',
        params: DidParams,
        body: S.SignedAccessBody,
        response: { 201: S.VerifierCertificateAnswer, ...errors },
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
        summary: "A new access certificate from the verifier's own root now; the old one is retired",
        params: DidParams,
        response: { 201: S.VerifierCertificateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const certificate = await certificates.rotate(request.auth!.did)
      return reply.status(201).send({ success: true, certificate: isoDates(certificate) })
    },
  )
}

function isoDates(c: VerifierCertificateView) {
  return { ...c, not_before: c.not_before.toISOString(), not_after: c.not_after.toISOString() }
}
