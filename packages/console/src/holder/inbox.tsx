import { presentToRequest } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Section, usePoll } from '../ui/layout.tsx'
import { formatValue, shortDid } from './format.ts'
import type { CredentialView, RequestView } from './types.ts'

const OPERATORS: Record<string, string> = { '>=': 'at least', '>': 'more than', '<=': 'at most', '<': 'less than' }

/** The service's own presentation requests this browser took (the spec flow). */
export function Inbox({
  session,
  inbox,
  credentials,
}: {
  session: RoleSession
  inbox: RequestView[]
  credentials: CredentialView[]
}) {
  return (
    <Section id="holder-inbox" title="Presentation inbox">
      {inbox.length === 0 ? (
        <p>No requests. Scan a verifier's QR code to add one.</p>
      ) : (
        inbox.map((r) => <InboxEntry key={r.id} session={session} request={r} credentials={credentials} />)
      )}
    </Section>
  )
}

const toggle = <T,>(set: Set<T>, item: T) => {
  const next = new Set(set)
  if (next.has(item)) next.delete(item)
  else next.add(item)
  return next
}

/**
 * One request, as a consent screen: who asks (the verifier's name, its DID on hover), why, and,
 * for the credential chosen, each claim that would be disclosed with its value and each predicate
 * proven without its value; Present sends only that, Decline tells the verifier.
 */
function InboxEntry({
  session,
  request,
  credentials,
}: {
  session: RoleSession
  request: RequestView
  credentials: CredentialView[]
}) {
  const [status, setStatus] = useState<string>('pending')
  const wanted = new Set(request.required_credentials.map((c) => c.credential_type))
  const usable = credentials.filter((c) => c.status === 'active' && !c.expired && !c.withdrawn)
  const fitting = usable.filter((c) => wanted.has(c.credential_type))
  const [chosen, setChosen] = useState<string>('')
  const credential = usable.find((c) => c.id === (chosen || fitting[0]?.id))
  const required = new Set(request.required_credentials.flatMap((c) => c.required_attributes ?? []))
  const [reveal, setReveal] = useState<Set<string>>(required)
  const [predicates, setPredicates] = useState<Set<number>>(new Set(request.required_predicates.map((_, i) => i)))
  const action = useAction()
  usePoll(
    async () => {
      const { data } = await session.client.api.GET('/api/wallet/presentation-requests/{request_id}/status', {
        params: { path: { request_id: request.id } },
      })
      setStatus(data!.status)
    },
    3000,
    [request.id],
  )
  const verifier = request.verifier_name || shortDid(request.verifier_did)
  const attributes = credential ? Object.keys(credential.credential_data) : []
  const disclosed = attributes.filter((a) => reveal.has(a))
  const proven = request.required_predicates.filter((_, i) => predicates.has(i))
  const present = () =>
    action.run(async () => {
      if (!credential) throw new Error('Choose a credential to present')
      await presentToRequest(session.client, session.key, {
        requestId: request.id,
        credentialIds: [credential.id],
        reveal: disclosed,
        predicates: proven,
      })
      setStatus('approved')
      return `Presented: ${verifier} received only what you chose, signed in this browser`
    })
  const reject = () =>
    action.run(async () => {
      await session.client.api.POST('/api/wallet/presentation-requests/{request_id}/reject', {
        params: { path: { request_id: request.id } },
        body: { reason: 'Declined by the holder' },
      })
      setStatus('rejected')
      return `Declined: ${verifier} was told you refused`
    })
  const headingId = `request-${request.id}`
  const valueId = (a: string) => `value-${request.id}-${a}`
  return (
    <article class="entry" aria-labelledby={headingId}>
      <h4 id={headingId}>
        {request.presentation_type}: {request.purpose}
      </h4>
      <p>
        From{' '}
        <strong title={request.verifier_did} data-testid="inbox-verifier">
          {verifier}
        </strong>
        {request.verifier_name && (
          <>
            {' '}
            (<code>{shortDid(request.verifier_did)}</code>)
          </>
        )}
        ; your answer: <strong>{status}</strong>
      </p>
      {status === 'pending' && (
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void present()
          }}
        >
          <label>
            Credential to present
            <select value={credential?.id ?? ''} onChange={(e) => setChosen(e.currentTarget.value)}>
              <option value="">Choose a credential</option>
              {usable.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.credential_type} from {c.issuer_name || c.issuer_did}
                </option>
              ))}
            </select>
          </label>
          {credential && (
            <fieldset>
              <legend>Disclose (the verifier reads these values)</legend>
              {attributes.map((a) => (
                <div class="choice" key={a}>
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={reveal.has(a)}
                      aria-describedby={valueId(a)}
                      onChange={() => setReveal(toggle(reveal, a))}
                    />{' '}
                    {a}
                    {required.has(a) ? ' (asked)' : ''}
                  </label>
                  <span class="value" id={valueId(a)}>
                    {formatValue(credential.credential_data[a])}
                  </span>
                </div>
              ))}
            </fieldset>
          )}
          {request.required_predicates.length > 0 && (
            <fieldset>
              <legend>Prove without disclosing (the verifier learns only that it holds)</legend>
              {request.required_predicates.map((p, i) => (
                <label key={i} class="check">
                  <input
                    type="checkbox"
                    checked={predicates.has(i)}
                    onChange={() => setPredicates(toggle(predicates, i))}
                  />{' '}
                  {p.attribute} {p.operator} {String(p.value)}
                </label>
              ))}
            </fieldset>
          )}
          {credential && (
            <div class="summary" data-testid="inbox-summary">
              <p>
                <strong>{verifier} will see:</strong>{' '}
                {disclosed.length
                  ? disclosed.map((a) => `${a} = ${formatValue(credential.credential_data[a])}`).join('; ')
                  : 'no claim value'}
                .
              </p>
              <p>
                <strong>Proven, value kept:</strong>{' '}
                {proven.length
                  ? proven
                      .map((p) => `${p.attribute} is ${OPERATORS[p.operator] ?? p.operator} ${String(p.value)}`)
                      .join('; ')
                  : 'nothing'}
                .
              </p>
            </div>
          )}
          <div class="actions">
            <button type="submit" disabled={action.busy || !credential}>
              Present
            </button>
            <button type="button" class="secondary" disabled={action.busy} onClick={() => void reject()}>
              Decline
            </button>
          </div>
        </form>
      )}
      <Outcome action={action} />
    </article>
  )
}
