import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Section, usePoll } from '../ui/layout.tsx'
import type { NameOf } from './format.ts'

/** The credentials the holder asked for (the spec's offers), and their issuers' answers. */
export function CredentialRequests({ session, nameOf }: { session: RoleSession; nameOf: NameOf }) {
  const [requests, setRequests] = useState<
    Array<{ id: string; credential_type: string; issuer_did: string; status: string }>
  >([])
  usePoll(
    async () => {
      const { data } = await session.client.api.GET('/api/wallet/{did}/credential-requests', {
        params: { path: { did: session.did }, query: {} },
      })
      setRequests((data as unknown as { data: typeof requests }).data ?? [])
    },
    3000,
    [session.did],
  )
  return (
    <Section id="holder-requests" title="Your credential requests">
      {requests.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="list">
          {requests.map((r) => (
            <li key={r.id}>
              {r.credential_type} from <span title={r.issuer_did}>{nameOf(r.issuer_did)}</span>: {r.status}
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}

export function Consents({ session, nameOf }: { session: RoleSession; nameOf: NameOf }) {
  const [consents, setConsents] = useState<
    Array<{ id: string; verifier_did: string; purpose: string; status: string; expiration_policy: string }>
  >([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/consents', {
      params: { path: { did: session.did }, query: {} },
    })
    setConsents((data as unknown as { data: typeof consents }).data ?? [])
  }
  usePoll(load, 5000, [session.did])
  const revoke = (id: string) =>
    action.run(async () => {
      await session.client.api.POST('/api/wallet/{did}/consents/{consent_id}/revoke', {
        params: { path: { did: session.did, consent_id: id } },
      })
      await load()
      return 'Consent revoked'
    })
  return (
    <Section id="holder-consents" title="Consents">
      {consents.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="list">
          {consents.map((c) => (
            <li key={c.id}>
              {c.purpose} for <span title={c.verifier_did}>{nameOf(c.verifier_did)}</span> ({c.expiration_policy}):{' '}
              {c.status}{' '}
              {c.status === 'active' && (
                <button type="button" disabled={action.busy} onClick={() => void revoke(c.id)}>
                  Revoke consent for {c.purpose}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <Outcome action={action} />
    </Section>
  )
}
