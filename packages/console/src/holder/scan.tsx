import { resolveQrPayload } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import { decodeQrImage } from '../lib/qr-image.ts'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Section } from '../ui/layout.tsx'
import { previewOffer, previewRequest, type OfferPreview, type RequestToAnswer } from './api.ts'
import { CameraScanner } from './camera.tsx'
import type { RequestView } from './types.ts'

export type Pending =
  | { kind: 'offer'; offerUri: string; preview: OfferPreview }
  | ({ kind: 'request' } & RequestToAnswer)

/**
 * Scan (camera or image file) or paste an offer or a request. Nothing is accepted or sent here:
 * OpenID4VC offers and requests open their consent screen, the service's own requests go to the
 * inbox, and the service's own offer becomes a credential request the issuer approves.
 */
export function Scan({
  session,
  notice,
  onRequest,
  onPending,
}: {
  session: RoleSession
  /** The outcome of the last decision; `link`: where the verifier asks the holder to continue (OID4VP 1.0 §8.2 redirect_uri, https only). */
  notice: { text: string; link?: string } | undefined
  onRequest: (r: RequestView) => void
  /** A consent screen to open; null closes the one open (another code is being read). */
  onPending: (p: Pending | null) => void
}) {
  const [text, setText] = useState('')
  const action = useAction()
  const readImage = (file: File | undefined) =>
    file &&
    action.run(async () => {
      setText(await decodeQrImage(file))
      return 'QR code read: check it below, then use it'
    })
  const fromCamera = (decoded: string) =>
    action.run(async () => {
      setText(decoded)
      return 'QR code read from the camera: check it below, then use it'
    })
  const use = () =>
    action.run(async () => {
      onPending(null)
      const payload = await resolveQrPayload(session.client, text)
      switch (payload.kind) {
        case 'spec-offer': {
          const offer = payload.raw as { issuer_did: string; offer_id: string }
          await session.client.api.POST('/api/wallet/credential-request', {
            body: { issuer_did: offer.issuer_did, offer_id: offer.offer_id },
          })
          return "Offer taken: your request waits for the issuer's approval; the credential appears below once issued"
        }
        case 'oid4vci-offer': {
          onPending({ kind: 'offer', offerUri: payload.value, preview: await previewOffer(session, payload.value) })
          return 'Offer read: check it, then accept or decline'
        }
        case 'spec-request': {
          const { data } = await session.client.api.POST('/api/wallet/presentation-requests', {
            body: { request_id: payload.value },
          })
          onRequest(data!.request as unknown as RequestView)
          return 'Presentation request added to your inbox'
        }
        case 'oid4vp-request': {
          onPending({ kind: 'request', ...(await previewRequest(session, payload.value)) })
          return 'Request read: nothing is sent until you choose Share'
        }
      }
    })
  return (
    <Section id="holder-scan" title="Scan or paste an offer or a request">
      <div class="scan-sources">
        <CameraScanner onCode={(decoded) => void fromCamera(decoded)} />
        <label>
          QR code image file
          <input
            type="file"
            accept="image/*"
            data-testid="qr-file"
            onChange={(e) => void readImage(e.currentTarget.files?.[0])}
          />
        </label>
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void use()
        }}
      >
        <label>
          QR code content (offer or request URI, or the service's JSON)
          <textarea
            required
            rows={3}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            data-testid="qr-text"
          />
        </label>
        <button type="submit" disabled={action.busy || !text.trim()}>
          Use this code
        </button>
      </form>
      <Outcome action={action} />
      {notice && (
        <p role="status" class="ok" data-testid="holder-notice">
          {notice.text}
          {notice.link && (
            <>
              {' '}
              <a href={notice.link} rel="noreferrer">
                Continue at the verifier
              </a>
            </>
          )}
        </p>
      )}
    </Section>
  )
}
