import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { signChallenge } from '../../lib/step-up.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { ConfirmButton, Party, ReadableClaims, Section, usePoll, When } from '../../ui/layout.tsx'

interface RequestView {
  id: string
  holder_did: string
  credential_type: string
  attributes: Record<string, unknown>
  status: string
  created_at: string
}

/** Holders' credential requests (the spec's offers): approved with a step-up signature made in this browser, or rejected. */
export function Requests({ session, onDone }: { session: RoleSession; onDone: () => void }) {
  const [requests, setRequests] = useState<RequestView[]>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/requests', {
      params: { path: { did: session.did }, query: { status: 'pending' } },
    })
    setRequests((data as unknown as { data: RequestView[] }).data ?? [])
  }
  usePoll(load, 2000, [session.did])
  const path = (id: string) => ({ path: { issuer_did: session.did, request_id: id } })
  const approve = (id: string) =>
    action.run(async () => {
      const { data } = await session.client.api.GET('/api/wallet/issuer/{issuer_did}/request/{request_id}/challenge', {
        params: path(id),
      })
      // The step-up proof of key control is signed here, with the key that never leaves the browser.
      const signature = await signChallenge(session.key, data!.challenge)
      await session.client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/approve', {
        params: path(id),
        body: { signature, challenge: data!.challenge },
      })
      await load()
      onDone()
      return 'Approved: the credential is issued to the holder'
    })
  const reject = (id: string, reason: string) =>
    action.run(async () => {
      await session.client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/reject', {
        params: path(id),
        body: { reason: reason || 'Rejected by the issuer' },
      })
      await load()
      onDone()
      return 'Rejected'
    })
  return (
    <Section id="issuer-requests" title="Credential requests from holders">
      {requests.length === 0 ? (
        <p>No pending requests.</p>
      ) : (
        <ul class="list">
          {requests.map((r) => (
            <li key={r.id}>
              <p>
                <strong>{r.credential_type}</strong> for <Party did={r.holder_did} />, <When iso={r.created_at} />
              </p>
              <ReadableClaims claims={r.attributes ?? {}} />
              <div class="actions">
                <button type="button" disabled={action.busy} onClick={() => approve(r.id)}>
                  Approve request {r.credential_type}
                </button>
                <ConfirmButton
                  label={`Reject request ${r.credential_type}`}
                  title={`Reject the request for ${r.credential_type}?`}
                  body={<p>The holder is told; no credential is issued.</p>}
                  confirm="Reject request"
                  reason="Reason (optional, the holder sees it)"
                  disabled={action.busy}
                  onConfirm={(reason) => void reject(r.id, reason)}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
      <Outcome action={action} />
    </Section>
  )
}
