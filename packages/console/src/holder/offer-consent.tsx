import { useEffect, useRef, useState } from 'preact/hooks'
import { Outcome, useAction } from '../ui/action.tsx'
import { acceptOfferNow, declineOffer, offeredConfiguration, type OfferPreview } from './api.ts'
import { claimLabel, formatName } from './format.ts'
import { doctypeLabel } from './mdoc.ts'
import type { RoleSession } from '../lib/session.ts'

/** Only images the page's CSP lets in (img-src 'self' data: blob:): a logo elsewhere is not fetched. */
function showableLogo(uri: string | null): string | null {
  if (!uri) return null
  if (uri.startsWith('data:image/')) return uri
  try {
    return new URL(uri, location.href).origin === location.origin ? uri : null
  } catch {
    return null
  }
}

/**
 * The preview of an OpenID4VCI offer: the issuer, the credential type, its
 * format and the claims it will hold, before anything is redeemed. The transaction code field
 * appears only when the offer asks for one (OID4VCI 1.0 §4.1.1 `tx_code`).
 */
export function OfferConsent({
  session,
  offerUri,
  preview,
  onDone,
}: {
  session: RoleSession
  offerUri: string
  preview: OfferPreview
  onDone: (message: string) => void
}) {
  const action = useAction()
  const [txCode, setTxCode] = useState('')
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [offerUri])
  const issuer = preview.issuer.name ?? preview.issuer.domain
  const logo = showableLogo(preview.issuer.logo_uri)
  const tx = preview.tx_code
  const accept = () =>
    action.run(async () => onDone(await acceptOfferNow(session, offerUri, tx ? txCode : undefined, preview)))
  const decline = () =>
    action.run(async () => {
      await declineOffer(session, offerUri, 'Declined by the holder')
      onDone(`Declined: nothing was taken from ${issuer}`)
    })
  return (
    <section class="card consent" aria-labelledby="offer-title" data-testid="offer-consent">
      <div class="consent-head">
        {logo && <img src={logo} alt="" width={48} height={48} />}
        <h3 id="offer-title" tabIndex={-1} ref={heading}>
          {issuer} offers you a credential
        </h3>
      </div>
      <p class="lead">Nothing has been accepted yet. Check the offer, then accept or decline it.</p>
      <dl class="facts" data-testid="offer-issuer">
        <div>
          <dt>Issuer</dt>
          <dd>{preview.issuer.name ?? 'No name given'}</dd>
        </div>
        <div>
          <dt>Domain</dt>
          <dd>{preview.issuer.domain}</dd>
        </div>
        {preview.issuer.did && (
          <div>
            <dt>DID</dt>
            <dd>
              <code>{preview.issuer.did}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Issuer URL</dt>
          <dd>
            <code>{preview.credential_issuer}</code>
          </dd>
        </div>
      </dl>
      {preview.credential_configurations.map((c) => (
        <article class="disclosure" key={c.id}>
          <h4>{c.display_name ?? doctypeLabel(c.credential_type) ?? c.credential_type}</h4>
          <dl class="facts">
            <div>
              {/* An mdoc's type is its doctype (ISO/IEC 18013-5 §7.1), named when this wallet knows it. */}
              <dt>{c.format === 'mso_mdoc' ? 'Doctype' : 'Type'}</dt>
              <dd>
                {doctypeLabel(c.credential_type) && `${doctypeLabel(c.credential_type)} `}
                <code>{c.credential_type}</code>
              </dd>
            </div>
            <div>
              <dt>Format</dt>
              <dd>{formatName(c.format)}</dd>
            </div>
          </dl>
          {c.claims.length === 0 ? (
            <p>The issuer lists no claims for this credential.</p>
          ) : (
            <>
              <p>It will hold:</p>
              <ul class="claim-names" data-testid="offered-claims">
                {c.claims.map((claim) => (
                  <li key={JSON.stringify(claim.path)} title={claim.path.join(' › ')}>
                    {c.format === 'mso_mdoc' ? (
                      // An element is named by its identifier (ISO/IEC 18013-5 §7.2.1); the issuer's words describe it.
                      <>
                        {claimLabel(claim.path, c.format, c.credential_type)}
                        {claim.display_name && <span class="muted"> ({claim.display_name})</span>}
                      </>
                    ) : (
                      (claim.display_name ?? claimLabel(claim.path))
                    )}
                    {claim.mandatory ? ' (always included)' : ''}
                  </li>
                ))}
              </ul>
            </>
          )}
        </article>
      ))}
      {offeredConfiguration(preview)?.format === 'mso_mdoc' && (
        <p class="note" data-testid="device-key-note">
          An mdoc is bound to a device key: this browser makes one the first time and keeps it, and only its public part
          is sent. The mdoc can then be shared only from this browser.
        </p>
      )}
      {preview.grant === 'authorization_code' && (
        <p class="warn">
          This offer uses the authorization code flow, which this wallet cannot complete: it can only be declined here.
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void accept()
        }}
      >
        {tx && (
          <label>
            Transaction code{tx.length ? ` (${tx.length} ${tx.input_mode === 'text' ? 'characters' : 'digits'})` : ''}
            {tx.description && <span class="hint">{tx.description}</span>}
            <input
              required
              value={txCode}
              onInput={(e) => setTxCode(e.currentTarget.value)}
              inputMode={tx.input_mode === 'text' ? 'text' : 'numeric'}
              autoComplete="one-time-code"
              {...(tx.length ? { maxLength: tx.length, minLength: tx.length } : {})}
            />
          </label>
        )}
        <div class="actions">
          <button type="submit" disabled={action.busy || preview.grant === 'authorization_code'}>
            Accept
          </button>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void decline()}>
            Decline
          </button>
        </div>
      </form>
      <Outcome action={action} />
    </section>
  )
}
