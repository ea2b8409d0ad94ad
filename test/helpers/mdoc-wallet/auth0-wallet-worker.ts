/**
 * The test wallet's mdoc side, in its own thread: @auth0/mdl and @owf/mdoc (the service's library)
 * each register a cbor-x extension for tag 24 on the one cbor-x instance, so the last loaded
 * decodes for both; a worker has its own modules and keeps @auth0/mdl apart from the service.
 * Builds and signs a DeviceResponse (or issues an mDL under a foreign test chain) with @auth0/mdl.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { DeviceResponse, Document, MDoc } from '@auth0/mdl'
import type { JWK } from 'jose'

export type WalletJob =
  | {
      kind: 'present'
      /** A DeviceResponse-shaped mdoc without device signature (base64url), what DeviceResponse.from reads. */
      mdoc: string
      doctype: string
      namespace: string
      elements: string[]
      /** SessionTranscriptBytes (base64url). */
      transcript: string
      deviceJwk: JWK
    }
  | {
      kind: 'issue'
      doctype: string
      namespace: string
      values: Record<string, unknown>
      validFrom: string
      validUntil: string
      deviceKey: JWK
      issuerPrivateKey: JWK
      issuerCertificatePem: string
    }

async function run(job: WalletJob): Promise<string> {
  if (job.kind === 'issue') {
    const signed = await new Document(job.doctype)
      .addIssuerNameSpace(job.namespace, job.values)
      .addValidityInfo({
        signed: new Date(job.validFrom),
        validFrom: new Date(job.validFrom),
        validUntil: new Date(job.validUntil),
      })
      .addDeviceKeyInfo({ deviceKey: job.deviceKey })
      .sign({ issuerPrivateKey: job.issuerPrivateKey, issuerCertificate: job.issuerCertificatePem, alg: 'ES256' })
    return Buffer.from(new MDoc([signed]).encode()).toString('base64url')
  }
  const presented = await DeviceResponse.from(new Uint8Array(Buffer.from(job.mdoc, 'base64url')))
    .usingPresentationDefinition({
      id: 'request',
      input_descriptors: [
        {
          id: job.doctype,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: job.elements.map((e) => ({ path: [`$['${job.namespace}']['${e}']`], intent_to_retain: false })),
          },
        },
      ],
    })
    .usingSessionTranscriptBytes(Buffer.from(job.transcript, 'base64url'))
    .authenticateWithSignature(job.deviceJwk as Record<string, unknown>, 'ES256')
    .sign()
  return Buffer.from(presented.encode()).toString('base64url')
}

run(workerData as WalletJob).then(
  (result) => parentPort!.postMessage({ result }),
  (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) }),
)
