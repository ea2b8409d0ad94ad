/**
 * What we issue and what our holder side presents, checked by an independent implementation:
 * @auth0/mdl's Verifier (issuer signature, DS chain to the IACA root, value digests, the
 * issuing_country / certificate match, the device signature). @auth0/mdl builds session
 * transcripts only for ISO 18013-7 draft forms, so the OpenID4VP 1.0 transcript is handed to it
 * as bytes (usingSessionTranscriptBytes / encodedSessionTranscript).
 */
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { X509Certificate, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { DeviceResponse as Auth0DeviceResponse, Verifier } from '@auth0/mdl'
import { IssuerSigned, cborEncode } from '@owf/mdoc'
import { MDL_DOCTYPE, MDL_NAMESPACE } from '../../src/modules/credentials/formats/mdoc/mdoc-ids.js'
import { issueMdoc } from '../../src/modules/credentials/formats/mdoc/mdoc-issue.js'
import { createDeviceResponse } from '../../src/modules/credentials/formats/mdoc/mdoc-device-response.js'
import { verifyDeviceResponse } from '../../src/modules/credentials/formats/mdoc/mdoc-verify.js'
import {
  sessionTranscriptBytes,
  taggedSessionTranscript,
} from '../../src/modules/credentials/formats/mdoc/session-transcript.js'
import { makeTestChain, type TestChain } from '../helpers/mdoc-test-chain.js'

const DAY = 86_400_000
const pem = (der: Uint8Array) => new X509Certificate(der).toString()

const elements = {
  family_name: 'Jones',
  given_name: 'Ava',
  birth_date: '2007-03-25',
  issuing_country: 'NL',
  document_number: 'NL-123',
  age_over_18: true,
  portrait: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==',
  driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2020-01-02', expiry_date: '2030-01-02' }],
}

describe('@auth0/mdl verifies what we issue and present', () => {
  let chain: TestChain
  let device: { publicKey: KeyObject; privateKey: KeyObject }
  let issued: Uint8Array
  let transcript: Uint8Array

  before(async () => {
    chain = await makeTestChain({ country: 'NL' })
    device = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const now = new Date()
    issued = (
      await issueMdoc({
        doctype: MDL_DOCTYPE,
        namespaces: { [MDL_NAMESPACE]: elements },
        types: {
          [MDL_NAMESPACE]: {
            birth_date: 'date',
            portrait: 'file',
            age_over_18: 'boolean',
            driving_privileges: 'array',
          },
        },
        signer: { privateKey: chain.dsPrivateKey, chain: [chain.dsDer] },
        deviceKeyJwk: device.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
        validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 30 * DAY) },
      })
    ).issuerSigned
    transcript = await sessionTranscriptBytes({
      kind: 'oid4vp',
      clientId: 'x509_san_dns:verifier.example',
      nonce: 'nonce-1',
      responseUri: 'https://verifier.example/response',
    })
  })

  /** Our IssuerSigned inside an MDoc (a DeviceResponse without device signatures), as @auth0/mdl reads one. */
  const asAuth0Mdoc = () =>
    cborEncode(
      new Map<string, unknown>([
        ['version', '1.0'],
        [
          'documents',
          [
            new Map<string, unknown>([
              ['docType', MDL_DOCTYPE],
              ['issuerSigned', IssuerSigned.decode(issued).encodedStructure],
            ]),
          ],
        ],
        ['status', 0],
      ]),
    )

  it('a DeviceResponse @auth0/mdl builds from our IssuerSigned verifies with @auth0/mdl and with ours', async () => {
    const presented = await Auth0DeviceResponse.from(asAuth0Mdoc())
      .usingPresentationDefinition({
        id: 'mdl',
        input_descriptors: [
          {
            id: MDL_DOCTYPE,
            format: { mso_mdoc: { alg: ['ES256'] } },
            constraints: {
              limit_disclosure: 'required',
              fields: ['family_name', 'birth_date', 'issuing_country'].map((e) => ({
                path: [`$['${MDL_NAMESPACE}']['${e}']`],
                intent_to_retain: false,
              })),
            },
          },
        ],
      })
      .usingSessionTranscriptBytes(Buffer.from(taggedSessionTranscript(transcript)))
      .authenticateWithSignature(device.privateKey.export({ format: 'jwk' }), 'ES256')
      .sign()
    const encoded = presented.encode()
    const mdoc = await new Verifier([pem(chain.iacaDer)]).verify(encoded, {
      encodedSessionTranscript: taggedSessionTranscript(transcript),
    })
    assert.equal(mdoc.documents.length, 1)

    const ours = await verifyDeviceResponse(encoded, { trustAnchors: [chain.iacaDer], sessionTranscript: transcript })
    assert.deepEqual(ours.problems, [])
    assert.deepEqual(ours.documents[0]?.namespaces, {
      [MDL_NAMESPACE]: { family_name: 'Jones', birth_date: '2007-03-25', issuing_country: 'NL' },
    })
  })

  it('a DeviceResponse our holder side builds verifies with @auth0/mdl, and not over another transcript', async () => {
    const { deviceResponse } = await createDeviceResponse({
      issuerSigned: issued,
      disclose: [
        [MDL_NAMESPACE, 'given_name'],
        [MDL_NAMESPACE, 'issuing_country'],
        [MDL_NAMESPACE, 'portrait'],
        [MDL_NAMESPACE, 'driving_privileges'],
      ],
      sessionTranscript: transcript,
      sign: async (toBeSigned) =>
        new Uint8Array(sign('sha256', toBeSigned, { key: device.privateKey, dsaEncoding: 'ieee-p1363' })),
    })
    const verifier = new Verifier([pem(chain.iacaDer)])
    const mdoc = await verifier.verify(deviceResponse, {
      encodedSessionTranscript: taggedSessionTranscript(transcript),
    })
    const items = mdoc.documents[0]?.issuerSigned.nameSpaces[MDL_NAMESPACE]?.map((i) => i.elementIdentifier)
    assert.deepEqual(items?.sort(), ['driving_privileges', 'given_name', 'issuing_country', 'portrait'])

    const another = await sessionTranscriptBytes({
      kind: 'oid4vp',
      clientId: 'x509_san_dns:verifier.example',
      nonce: 'nonce-2',
      responseUri: 'https://verifier.example/response',
    })
    await assert.rejects(
      verifier.verify(deviceResponse, { encodedSessionTranscript: taggedSessionTranscript(another) }),
    )
  })

  it('@auth0/mdl refuses our credential under another IACA root', async () => {
    const other = await makeTestChain({ country: 'NL' })
    const { deviceResponse } = await createDeviceResponse({
      issuerSigned: issued,
      disclose: [[MDL_NAMESPACE, 'family_name']],
      sessionTranscript: transcript,
      sign: async (toBeSigned) =>
        new Uint8Array(sign('sha256', toBeSigned, { key: device.privateKey, dsaEncoding: 'ieee-p1363' })),
    })
    await assert.rejects(
      new Verifier([pem(other.iacaDer)]).verify(deviceResponse, {
        encodedSessionTranscript: taggedSessionTranscript(transcript),
      }),
    )
  })
})
