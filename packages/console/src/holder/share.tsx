import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { usePoll } from '../ui/layout.tsx'
import { formatDate } from './format.ts'
import type { CredentialView } from './types.ts'

interface ShareView {
  id: string
  purpose: string
  status: string
  expires_at: string
  max_uses: number | null
  uses: number
}

const LIFETIMES: Array<[string, number]> = [
  ['1 hour', 3600],
  ['1 day', 86_400],
  ['7 days', 604_800],
]

/**
 * Share links of one credential (docs/wallet.md "Share links"): whoever opens the link gets the
 * credential until it expires, is used up or revoked. The link is shown once (only its hash is kept).
 */
export function SharePanel({ session, credential }: { session: RoleSession; credential: CredentialView }) {
  const [shares, setShares] = useState<ShareView[]>([])
  const [lifetime, setLifetime] = useState(86_400)
  const [maxUses, setMaxUses] = useState('')
  const [purpose, setPurpose] = useState('')
  const [link, setLink] = useState<string>()
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/shares', {
      params: { path: { did: session.did }, query: { credential_id: credential.id } },
    })
    setShares((data as unknown as { data?: ShareView[] }).data ?? [])
  }
  usePoll(load, 10_000, [credential.id])
  const create = () =>
    action.run(async () => {
      const { data } = await session.client.api.POST('/api/wallet/{did}/credentials/share', {
        params: { path: { did: session.did } },
        body: {
          credential_id: credential.id,
          expires_in_seconds: lifetime,
          ...(maxUses ? { max_uses: Number(maxUses) } : {}),
          ...(purpose.trim() ? { purpose: purpose.trim() } : {}),
        },
      })
      setLink(data!.share.share_url)
      await load()
      return 'Share link made: copy it now, it is shown only once'
    })
  const revoke = (id: string) =>
    action.run(async () => {
      await session.client.api.POST('/api/wallet/{did}/shares/{share_id}/revoke', {
        params: { path: { did: session.did, share_id: id } },
      })
      await load()
      return 'Share link revoked: it stops working at once'
    })
  const id = (name: string) => `share-${credential.id.replace(/\W/g, '-')}-${name}`
  return (
    <div class="share-panel" data-testid="share-panel">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void create()
        }}
      >
        <div class="share-fields">
          <label for={id('lifetime')}>
            Valid for
            <select
              id={id('lifetime')}
              value={String(lifetime)}
              onChange={(e) => setLifetime(Number(e.currentTarget.value))}
            >
              {LIFETIMES.map(([label, seconds]) => (
                <option key={seconds} value={String(seconds)}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label for={id('uses')}>
            Maximum opens (optional)
            <input
              id={id('uses')}
              type="number"
              min={1}
              max={1000}
              value={maxUses}
              onInput={(e) => setMaxUses(e.currentTarget.value)}
            />
          </label>
          <label for={id('purpose')}>
            Purpose (optional)
            <input
              id={id('purpose')}
              maxLength={500}
              value={purpose}
              onInput={(e) => setPurpose(e.currentTarget.value)}
            />
          </label>
        </div>
        <button type="submit" disabled={action.busy}>
          Make a share link
        </button>
      </form>
      {link && (
        <div class="share-link">
          <label>
            Share link (shown once)
            <input readOnly value={link} data-testid="share-link" />
          </label>
          <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(link)}>
            Copy the link
          </button>
        </div>
      )}
      <Outcome action={action} />
      {shares.length > 0 && (
        <ul class="list shares">
          {shares.map((s) => (
            <li key={s.id}>
              {s.purpose || 'Share link'}: {s.status}, opened {s.uses}
              {s.max_uses ? ` of ${s.max_uses}` : ''} time(s), until {formatDate(s.expires_at)}
              {s.status === 'active' && (
                <>
                  {' '}
                  <button type="button" class="secondary" disabled={action.busy} onClick={() => void revoke(s.id)}>
                    Revoke link
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
