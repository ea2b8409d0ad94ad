import { useEffect, useRef } from 'preact/hooks'
import { Outcome, useAction } from '../ui/action.tsx'
import type { PreparedPresentation, RequestPreview, VerifierIdentity } from './api.ts'
import {
  claimLabel,
  clientIdName,
  formatDate,
  formatName,
  isPersonalClaim,
  shortDid,
  valueAt,
  type NameOf,
} from './format.ts'
import { ElementValue } from './element-value.tsx'
import { doctypeLabel, namespaceLabel } from './mdoc.ts'

/** The verifier as a person reads it: its name, else its domain, else its identifier. */
export function verifierTitle(preview: RequestPreview): string {
  const id = preview.verifierIdentity
  return id?.name ?? id?.domain ?? shortDid(clientIdName(preview.verifier))
}

/**
 * The consent screen of an OpenID4VP request: who asks (and how the wallet
 * knows), why, and every claim that will leave with its value. Nothing has been sent to the
 * verifier while it shows; Share signs and sends, Decline sends OID4VP 1.0's access_denied.
 */
export function RequestConsent({
  preview,
  deviceKeyMissing,
  nameOf,
  onDone,
}: {
  preview: RequestPreview
  /** It asks for an mdoc and this browser has no device key to sign it with (api.ts previewRequest). */
  deviceKeyMissing: boolean
  nameOf: NameOf
  onDone: (message: string, redirect?: string) => void
}) {
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [preview.sessionId])
  const who = verifierTitle(preview)
  const share = () =>
    action.run(async () => {
      // The SDK signs each prepared proof here (an mdoc's with the device key, a JWS with the holder's), then the service sends it.
      const outcome = await preview.accept()
      onDone(
        outcome.accepted
          ? `Shared with ${who}: the verifier accepted the presentation`
          : `Shared with ${who}, but the verifier refused it (HTTP ${outcome.verifier_status}${outcome.verifier_error ? `: ${outcome.verifier_error}` : ''})`,
        outcome.redirect_uri,
      )
    })
  const decline = () =>
    action.run(async () => {
      const outcome = await preview.decline('Declined by the holder')
      onDone(
        outcome.verifier_status === null
          ? `Declined: nothing was shared (${who} could not be reached to be told)`
          : `Declined: ${who} was told you refused, and nothing was shared`,
        outcome.redirect_uri,
      )
    })
  return (
    <section class="card consent" aria-labelledby="consent-title" data-testid="request-consent">
      <h3 id="consent-title" tabIndex={-1} ref={heading}>
        {who} asks you to share information
      </h3>
      <p class="lead">Nothing has been sent yet. Check who asks and what they will see, then share or decline.</p>
      <VerifierCard identity={preview.verifierIdentity} clientId={preview.verifier} />
      <p class="purpose">
        <strong>Purpose:</strong> {preview.purpose ?? 'The verifier gave no purpose.'}
      </p>
      <h4>What {who} will see</h4>
      {preview.presentations.map((p) => (
        <PresentationItems key={p.query_id} presentation={p} nameOf={nameOf} />
      ))}
      <p class="note">
        Proven without disclosing: nothing. An OpenID4VP request asks for claims; every claim listed above leaves with
        its value.
      </p>
      <p class="note">Answer before {formatDate(preview.expiresAt)}.</p>
      {deviceKeyMissing && (
        <p class="warn" data-testid="device-key-missing">
          This browser cannot share the mdoc asked for. An mdoc proves it is yours with the device key it was accepted
          with, and this browser has none: the mdoc was imported, or accepted in another browser. Share it from the
          browser that accepted it, or decline here.
        </p>
      )}
      <div class="actions">
        <button type="button" disabled={action.busy || deviceKeyMissing} onClick={() => void share()}>
          Share
        </button>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void decline()}>
          Decline
        </button>
      </div>
      <Outcome action={action} />
    </section>
  )
}

function VerifierCard({ identity, clientId }: { identity: VerifierIdentity | null | undefined; clientId: string }) {
  return (
    <dl class="facts" data-testid="verifier-identity">
      <div>
        <dt>Verifier</dt>
        <dd>
          {identity?.name ? (
            <>
              {identity.name} <span class="muted">(as it names itself)</span>
            </>
          ) : (
            'No name given'
          )}
        </dd>
      </div>
      {identity?.domain && (
        <div>
          <dt>Domain</dt>
          <dd>{identity.domain}</dd>
        </div>
      )}
      <div>
        <dt>Identifier</dt>
        <dd>
          <code>{clientId}</code>
        </dd>
      </div>
      <div>
        <dt>Identity</dt>
        <dd class={identity?.verified ? 'ok' : 'warn'}>
          {identity
            ? identity.verified
              ? `Verified: ${identity.verified_by}`
              : `Not verified: ${identity.verified_by}`
            : 'Not checked by this wallet version'}
        </dd>
      </div>
    </dl>
  )
}

function PresentationItems({ presentation: p, nameOf }: { presentation: PreparedPresentation; nameOf: NameOf }) {
  const personal = p.claims.filter(isPersonalClaim)
  const technical = p.claims.filter((c) => !isPersonalClaim(c))
  // An mdoc held under another type name is named by the namespace of what it discloses.
  const mdoc = p.format === 'mso_mdoc'
  const title =
    doctypeLabel(p.credential_type) ??
    (mdoc && typeof p.claims[0]?.[0] === 'string' ? namespaceLabel(p.claims[0][0]) : undefined) ??
    p.credential_type
  const label = (path: (typeof p.claims)[number]) => claimLabel(path, p.format, p.credential_type)
  return (
    <article class="disclosure">
      <h5>
        {title}{' '}
        {title !== p.credential_type && (
          <>
            <code>{p.credential_type}</code>{' '}
          </>
        )}
        <span class="muted">
          from <span title={p.issuer_did}>{nameOf(p.issuer_did)}</span>, {formatName(p.format)}
        </span>
      </h5>
      {personal.length === 0 ? (
        <p>No personal claim: only the credential itself.</p>
      ) : (
        <dl class="claims" data-testid="disclosed-claims">
          {personal.map((path) => (
            <div key={JSON.stringify(path)}>
              <dt title={path.join(' › ')}>{label(path)}</dt>
              <dd>
                <ElementValue value={valueAt(p.disclosed, path)} element={elementOf(path)} label={label(path)} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {technical.length > 0 && (
        <details>
          <summary>Also sent: {technical.length} technical claim(s) of the credential</summary>
          <dl class="claims">
            {technical.map((path) => (
              <div key={JSON.stringify(path)}>
                <dt>{label(path)}</dt>
                <dd>
                  <ElementValue value={valueAt(p.disclosed, path)} element={elementOf(path)} label={label(path)} />
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </article>
  )
}

/** The name a path ends in (an mdoc's element identifier), which tells whether its value is bytes. */
function elementOf(path: Array<string | number | null>): string | undefined {
  const last = path.at(-1)
  return typeof last === 'string' ? last : undefined
}
