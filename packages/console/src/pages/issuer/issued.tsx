import { useState } from 'preact/hooks'
import { FORMATS } from '../../lib/forms.ts'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { ConfirmButton, Party, Section, usePoll, When } from '../../ui/layout.tsx'

interface IssuedView {
  id: string
  credential_type: string
  subject_did?: string | null
  owner_did?: string | null
  status: string
  format?: string | null
  created_at?: string
  issued_at?: string
}

/** Issued credentials; revoking asks first (it cannot be undone). */
export function Issued({ session, version }: { session: RoleSession; version: number }) {
  const [issued, setIssued] = useState<IssuedView[]>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/credentials', {
      params: { path: { did: session.did }, query: { limit: 50 } },
    })
    setIssued((data as unknown as { data: IssuedView[] }).data ?? [])
  }
  usePoll(load, 5000, [session.did, version])
  const revoke = (c: IssuedView, reason: string) =>
    action.run(async () => {
      await session.client.api.POST('/api/issuer/{did}/credentials/{credential_id}/revoke', {
        params: { path: { did: session.did, credential_id: c.id } },
        body: reason ? { reason } : {},
      })
      await load()
      return `Revoked ${c.credential_type}: its status list bit is set`
    })
  return (
    <Section id="issuer-issued" title="Issued credentials" wide>
      {issued.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <table class="stack" data-testid="issuer-issued-table">
          <caption>Credentials you issued</caption>
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Holder</th>
              <th scope="col">Format</th>
              <th scope="col">Issued</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {issued.map((c) => {
              const holder = c.subject_did ?? c.owner_did
              return (
                <tr key={c.id}>
                  <td data-label="Type">{c.credential_type}</td>
                  <td data-label="Holder">{holder ? <Party did={holder} /> : '—'}</td>
                  <td data-label="Format">
                    {FORMATS.find((f) => f.id === (c.format ?? 'jwt_vc_json'))?.label ?? c.format}
                  </td>
                  <td data-label="Issued">
                    <When iso={c.issued_at ?? c.created_at} />
                  </td>
                  <td data-label="Status">
                    <span class={`badge ${c.status}`}>{c.status}</span>
                  </td>
                  <td data-label="Actions">
                    {c.status !== 'revoked' && (
                      <ConfirmButton
                        label={`Revoke ${c.credential_type}`}
                        title={`Revoke this ${c.credential_type}?`}
                        body={<p>Verifiers will see it as revoked from now on. This cannot be undone.</p>}
                        confirm="Revoke credential"
                        reason="Reason (optional)"
                        disabled={action.busy}
                        onConfirm={(reason) => void revoke(c, reason)}
                      />
                    )}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
      <Outcome action={action} />
    </Section>
  )
}
