import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { ConfirmDialog } from '../ui/confirm-dialog.tsx'
import { Claims, Section } from '../ui/layout.tsx'
import { MdocElements } from './element-value.tsx'
import { formatDate, isUrl, storedFormat, type NameOf } from './format.ts'
import { credentialTitle, mdocDoctypeOf } from './mdoc.ts'
import { SharePanel } from './share.tsx'
import type { CredentialView } from './types.ts'

export function statusOf(c: CredentialView): string {
  return c.withdrawn ? 'withdrawn' : c.expired ? 'expired' : c.status
}

/** The wallet's credentials: each with its detail, share links and delete (after a confirmation). */
export function Credentials({
  session,
  credentials,
  nameOf,
  onChanged,
}: {
  session: RoleSession
  credentials: CredentialView[]
  nameOf: NameOf
  onChanged: () => Promise<void>
}) {
  // A deleted credential's item is gone with its outcome: the list says what happened.
  const [deleted, setDeleted] = useState<string>()
  const changed = async (message?: string) => {
    setDeleted(message)
    await onChanged()
  }
  return (
    <Section id="holder-credentials" title="Credentials">
      {deleted && (
        <p role="status" class="ok">
          {deleted}
        </p>
      )}
      {credentials.length === 0 ? (
        <p>No credentials yet.</p>
      ) : (
        <ul class="list" data-testid="holder-credentials">
          {credentials.map((c) => (
            <CredentialItem key={c.id} session={session} credential={c} nameOf={nameOf} onChanged={changed} />
          ))}
        </ul>
      )}
    </Section>
  )
}

function CredentialItem({
  session,
  credential: c,
  nameOf,
  onChanged,
}: {
  session: RoleSession
  credential: CredentialView
  nameOf: NameOf
  onChanged: (message?: string) => Promise<void>
}) {
  const [open, setOpen] = useState<'none' | 'detail' | 'share'>('none')
  const [confirming, setConfirming] = useState(false)
  const action = useAction()
  const status = statusOf(c)
  // An mdoc is named by its doctype's label (ISO/IEC 18013-5 §7.1), the doctype itself shown beside it.
  const doctype = mdocDoctypeOf(c)
  const title = credentialTitle(c)
  // The issuer's own name when the record has one; else a name the wallet saw (an offer's preview), its domain or its DID.
  const issuer = c.issuer_name && !isUrl(c.issuer_name) ? c.issuer_name : nameOf(c.issuer_name || c.issuer_did)
  const panel = `credential-panel-${c.id.replace(/\W/g, '-')}`
  const remove = () => {
    setConfirming(false)
    void action.run(async () => {
      await session.client.api.DELETE('/api/wallet/{did}/credentials/{credential_id}', {
        params: { path: { did: session.did, credential_id: c.id } },
      })
      await onChanged(`${title} from ${issuer} deleted from your wallet`)
    })
  }
  const show = (what: 'detail' | 'share') => setOpen(open === what ? 'none' : what)
  return (
    <li class="credential" data-testid="credential-item" data-credential-id={c.id}>
      <div class="credential-head">
        <h4>{title}</h4>
        <span class={`badge ${status}`}>{status}</span>
      </div>
      {doctype && (
        <p class="muted" data-testid="credential-doctype">
          mdoc of doctype <code>{doctype}</code>
        </p>
      )}
      <p class="muted">
        From{' '}
        <span title={c.issuer_did} data-testid="credential-issuer">
          {issuer}
        </span>
        , received {formatDate(c.created_at)}
      </p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-expanded={open === 'detail'}
          aria-controls={panel}
          aria-label={`Details of ${title}`}
          onClick={() => show('detail')}
        >
          Details
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={open === 'share'}
          aria-controls={panel}
          aria-label={`Share ${title}`}
          onClick={() => show('share')}
          disabled={status !== 'active'}
        >
          Share
        </button>
        <button
          type="button"
          class="danger"
          aria-label={`Delete ${title}`}
          onClick={() => setConfirming(true)}
          disabled={action.busy}
        >
          Delete
        </button>
      </div>
      <div id={panel}>
        {open === 'detail' && (
          <div class="credential-detail" data-testid="credential-detail">
            <dl class="facts">
              <div>
                <dt>Issuer</dt>
                <dd>
                  <span title={c.issuer_did}>{issuer}</span>
                </dd>
              </div>
              <div>
                <dt>Issuer DID</dt>
                <dd>
                  <code>{c.issuer_did}</code>
                </dd>
              </div>
              {doctype && (
                <div>
                  <dt>Doctype</dt>
                  <dd>
                    <code>{doctype}</code>
                  </dd>
                </div>
              )}
              <div>
                <dt>Format</dt>
                <dd>{storedFormat(c)}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>
                  {status}
                  {c.status !== 'active' ? ' (by its issuer)' : ''}
                </dd>
              </div>
              <div>
                <dt>Received</dt>
                <dd>{formatDate(c.created_at)}</dd>
              </div>
              <div>
                <dt>Expires</dt>
                <dd>{c.expiration_date ? formatDate(c.expiration_date) : 'never'}</dd>
              </div>
              <div>
                <dt>How it came</dt>
                <dd>{c.source === 'imported' ? 'imported (verified on import)' : 'issued by this service'}</dd>
              </div>
            </dl>
            {doctype ? (
              <>
                <h5>Data elements</h5>
                <MdocElements elements={c.credential_data} />
              </>
            ) : (
              <>
                <h5>Claims</h5>
                <Claims claims={c.credential_data} />
              </>
            )}
          </div>
        )}
        {open === 'share' && <SharePanel session={session} credential={c} />}
      </div>
      <Outcome action={action} />
      {/* Mounted only while asked: a closed dialog's text would still be in the item. */}
      {confirming && (
        <ConfirmDialog
          open
          title={`Delete ${title}?`}
          confirmLabel="Delete"
          onConfirm={remove}
          onCancel={() => setConfirming(false)}
        >
          <p>
            It is removed from this wallet only: {issuer} does not revoke it. Its share links stop working. This cannot
            be undone here.
          </p>
        </ConfirmDialog>
      )}
    </li>
  )
}
