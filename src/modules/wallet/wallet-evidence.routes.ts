import { createHash } from 'node:crypto'
import type { MultipartFile, MultipartValue } from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../errors.js'
import { Did } from '../auth/auth.schemas.js'
import { EvidenceAttachment } from '../credentials/evidence-attachment.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { tooLarge, type WalletEvidenceService } from './wallet-evidence.service.js'
import { EvidenceRecord, evidenceView, RecordId } from './wallet.schemas.js'

// The label an issuer's schema lists in allowed_evidence (same rule as an issuance's evidence).
const LABEL = /^[A-Za-z0-9][A-Za-z0-9 ._:/-]{0,99}$/

/**
 * Evidence upload (multipart/form-data: one file, and a `label` field) with per-route limits
 * (EVIDENCE_MAX_BYTES, EVIDENCE_ALLOWED_TYPES) instead of the avatar limits the app registers
 * @fastify/multipart with; the holder's uploads listed and, in custody `service`, downloaded.
 */
export const walletEvidenceRoutes: FastifyPluginAsyncTypebox<{
  evidence: WalletEvidenceService
  idempotency: IdempotencyService
}> = async (app, { evidence, idempotency }) => {
  const params = Type.Object({ did: Did })

  app.post(
    '/:did/evidence/upload',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Upload an evidence file (multipart/form-data: file, label); sealed to your ML-KEM key in the content store',
        description:
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key, fields and file answers the first 201; another upload 422; while the first is in progress 409.',
        consumes: ['multipart/form-data'],
        params,
        headers: IdempotencyHeaders,
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            evidence: Type.Composite([EvidenceAttachment], {
              description: "the spec's evidence attachment, usable as is in an issuance's evidence list",
            }),
            record: EvidenceRecord,
          }),
          ...errorRefs(400, 401, 403, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new UnsupportedMediaTypeError('Send the evidence as multipart/form-data with a file and a label field')
      const { maxBytes } = evidence.policy
      const fields: Record<string, string> = {}
      let file: { filename: string; mimetype: string; bytes: Buffer } | undefined
      try {
        const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 5 } })
        for await (const part of parts as AsyncIterableIterator<MultipartFile | MultipartValue>) {
          if (part.type === 'file')
            file = { filename: part.filename, mimetype: part.mimetype, bytes: await part.toBuffer() }
          else fields[part.fieldname] = String(part.value)
        }
      } catch (error) {
        if (error instanceof AppError) throw error
        const status = (error as { statusCode?: number }).statusCode
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes)
        if (status === 413) throw new PayloadTooLargeError('Send one file and at most a label field', { cause: error })
        throw new ValidationError('The multipart body could not be read', { cause: error })
      }
      if (!file)
        throw new ValidationError('No file in the upload: send it as a multipart file part', {
          details: { field: 'file' },
        })
      const label = fields.label?.trim()
      if (!label || !LABEL.test(label))
        throw new ValidationError(
          "label is required: letters, digits, space and ._:/- (at most 100), as listed in the schema's allowed_evidence",
          { details: { field: 'label' } },
        )
      const holderDid = request.auth!.did
      // A multipart body has no JSON form: the upload is the fields and the file's bytes, by digest.
      const upload = {
        fields,
        filename: file.filename,
        content_type: file.mimetype,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
      }
      const { body: row } = await idempotency.run(
        keyedRequest(request, { body: upload }),
        (claim) =>
          evidence.upload(
            holderDid,
            { label, filename: safeFilename(file.filename), declaredType: file.mimetype, bytes: file.bytes },
            claim,
          ),
        (evidenceId) => evidence.get(holderDid, evidenceId),
      )
      const attachment = evidence.attachment(row)
      return reply.status(201).send({
        success: true,
        message: 'Evidence uploaded',
        evidence: attachment,
        record: evidenceView(row, attachment),
      })
    },
  )

  app.get(
    '/:did/evidence',
    {
      schema: {
        tags: ['Wallet'],
        summary: "The holder's evidence uploads, paginated",
        params,
        querystring: Type.Composite([
          PageQuery,
          Type.Object({ label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
        ]),
        response: { 200: pageResponse(EvidenceRecord), ...errorRefs(400, 401, 403) },
      },
    },
    async (request) =>
      paginate(
        request.query,
        (p) => evidence.list(request.auth!.did, request.query, p),
        (row) => evidenceView(row, evidence.attachment(row)),
      ),
  )

  app.get(
    '/:did/evidence/:evidence_id/content',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'The evidence file in clear (only while the service holds your decryption key; otherwise open the envelope yourself)',
        params: Type.Object({ did: Did, evidence_id: RecordId }),
        response: errorRefs(400, 401, 403, 404, 409),
      },
    },
    async (request, reply) => {
      const { row, bytes } = await evidence.download(request.auth!.did, request.params.evidence_id)
      return reply
        .type(row.content_type)
        .header('content-disposition', `attachment; filename="${row.filename.replace(/["\\]/g, '_')}"`)
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(bytes))
    },
  )
}

/** The base name, printable, at most 255 characters (it is echoed in headers and listings). */
function safeFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? ''
  const clean = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255)
  return clean || 'evidence'
}
