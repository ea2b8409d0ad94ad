import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { Section, usePoll } from '../ui/layout.tsx'
import { activitySentence, formatDate, type NameOf } from './format.ts'

interface ActivityView {
  id: string
  type: string
  credential_id: string | null
  details: Record<string, unknown>
  created_at: string
}

/** The wallet's log, newest first, as sentences (consents and refusals included); `typeOf` names a credential still in the wallet. */
export function Activity({
  session,
  nameOf,
  typeOf,
}: {
  session: RoleSession
  nameOf: NameOf
  typeOf: (credentialId: string | null) => string | undefined
}) {
  const [items, setItems] = useState<ActivityView[]>([])
  usePoll(
    async () => {
      const { data } = await session.client.api.GET('/api/wallet/{did}/activities', {
        params: { path: { did: session.did }, query: {} },
      })
      setItems((data as unknown as { data: ActivityView[] }).data ?? [])
    },
    3000,
    [session.did],
  )
  return (
    <Section id="holder-activity" title="Activity">
      {items.length === 0 ? (
        <p>Nothing yet.</p>
      ) : (
        <ol class="activity" data-testid="holder-activity">
          {items.map((a) => (
            <li key={a.id} data-type={a.type}>
              <span>{activitySentence(a.type, a.details ?? {}, nameOf, typeOf(a.credential_id))}</span>
              <time dateTime={a.created_at}>{formatDate(a.created_at)}</time>
            </li>
          ))}
        </ol>
      )}
    </Section>
  )
}
