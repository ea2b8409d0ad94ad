import { acceptOffer, answerPresentationRequest, presentToRequest, resolveQrPayload } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import { decodeQrImage } from '../lib/qr-image.ts'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Claims, Section, usePoll } from '../ui/layout.tsx'

interface CredentialView { id: string; credential_type: string; issuer_did: string; issuer_name: string; status: string; credential_data: Record<string, unknown>; expired: boolean; withdrawn: boolean; anonymous_credential: unknown }
interface RequestView {
  id: string
  verifier_did: string
  purpose: string
  presentation_type: string
  required_credentials: Array<{ credential_type: string; required_attributes?: string[] }>
  required_predicates: Array<{ attribute: string; operator: string; value: number | string }>
}

/** The holder wallet: scan or paste offers and requests, credentials, the inbox, consents, activity. */
export function HolderPage({ session }: { session: RoleSession }) {
  const [credentials, setCredentials] = useState<CredentialView[]>([])
  const [inbox, setInbox] = useState<RequestView[]>(() => loadInbox(session.did))
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/credentials', { params: { path: { did: session.did }, query: { limit: 100 } } })
    setCredentials((data?.data ?? []) as unknown as CredentialView[])
  }, 2000, [session.did])
  const addToInbox = (request: RequestView) => {
    const next = [request, ...inbox.filter((r) => r.id !== request.id)]
    setInbox(next)
    saveInbox(session.did, next)
  }
  return (
    <div class="grid">
      <Scan session={session} onRequest={addToInbox} />
      <Credentials credentials={credentials} />
      <Inbox session={session} inbox={inbox} credentials={credentials} />
      <CredentialRequests session={session} />
      <Consents session={session} />
      <Activity session={session} />
    </div>
  )
}

/** The requests this browser took into the inbox (the service lists answers, not open requests). */
const inboxKey = (did: string) => `inbox:${did}`
function loadInbox(did: string): RequestView[] {
  try {
    return JSON.parse(localStorage.getItem(inboxKey(did)) ?? '[]') as RequestView[]
  } catch {
    return []
  }
}
function saveInbox(did: string, inbox: RequestView[]) {
  localStorage.setItem(inboxKey(did), JSON.stringify(inbox.slice(0, 50)))
}

function Scan({ session, onRequest }: { session: RoleSession; onRequest: (r: RequestView) => void }) {
  const [text, setText] = useState('')
  const [txCode, setTxCode] = useState('')
  const action = useAction()
  const readImage = (file: File | undefined) => file && action.run(async () => {
    const decoded = await decodeQrImage(file)
    setText(decoded)
    return 'QR code read: check it below, then use it'
  })
  const use = () => action.run(async () => {
    const payload = await resolveQrPayload(session.client, text)
    switch (payload.kind) {
      case 'spec-offer': {
        const offer = payload.raw as { issuer_did: string; offer_id: string }
        await session.client.api.POST('/api/wallet/credential-request', { body: { issuer_did: offer.issuer_did, offer_id: offer.offer_id } })
        return 'Offer taken: your request waits for the issuer\'s approval; the credential appears below once issued'
      }
      case 'oid4vci-offer': {
        const result = await acceptOffer(session.client, session.key, { offerUri: payload.value, ...(txCode ? { txCode } : {}) })
        return result.status === 'issued' ? `Received ${result.credentials.length} credential(s)` : 'The issuer will send the credential later (deferred)'
      }
      case 'spec-request': {
        const { data } = await session.client.api.POST('/api/wallet/presentation-requests', { body: { request_id: payload.value } })
        onRequest(data!.request as unknown as RequestView)
        return 'Presentation request added to your inbox'
      }
      case 'oid4vp-request': {
        const result = await answerPresentationRequest(session.client, session.key, { authorizationRequestUri: payload.value })
        return result.accepted ? 'Presented: the verifier accepted the response' : `The verifier refused the response (HTTP ${result.verifier_status})`
      }
    }
  })
  return (
    <Section id="holder-scan" title="Scan or paste an offer or a request">
      <label>
        QR code image file
        <input type="file" accept="image/*" data-testid="qr-file" onChange={(e) => void readImage(e.currentTarget.files?.[0])} />
      </label>
      <form onSubmit={(e) => { e.preventDefault(); void use() }}>
        <label>
          QR code content (offer or request URI, or the service's JSON)
          <textarea required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <label>Transaction code (OpenID4VCI offers that ask for one) <input value={txCode} onInput={(e) => setTxCode(e.currentTarget.value)} autoComplete="one-time-code" /></label>
        <button type="submit" disabled={action.busy || !text.trim()}>Use this code</button>
      </form>
      <Outcome action={action} />
    </Section>
  )
}

function Credentials({ credentials }: { credentials: CredentialView[] }) {
  return (
    <Section id="holder-credentials" title="Credentials">
      {credentials.length === 0 ? <p>No credentials yet.</p> : (
        <ul class="list" data-testid="holder-credentials">
          {credentials.map((c) => (
            <li key={c.id}>
              <p><strong>{c.credential_type}</strong> from {c.issuer_name || c.issuer_did}: <span class={`badge ${c.status}`}>{c.withdrawn ? 'withdrawn' : c.expired ? 'expired' : c.status}</span></p>
              <Claims claims={c.credential_data} />
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}

function Inbox({ session, inbox, credentials }: { session: RoleSession; inbox: RequestView[]; credentials: CredentialView[] }) {
  return (
    <Section id="holder-inbox" title="Presentation inbox">
      {inbox.length === 0 ? <p>No requests. Scan a verifier's QR code to add one.</p> : inbox.map((r) => <InboxEntry key={r.id} session={session} request={r} credentials={credentials} />)}
    </Section>
  )
}

function InboxEntry({ session, request, credentials }: { session: RoleSession; request: RequestView; credentials: CredentialView[] }) {
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
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/wallet/presentation-requests/{request_id}/status', { params: { path: { request_id: request.id } } })
    setStatus(data!.status)
  }, 3000, [request.id])
  const toggle = <T,>(set: Set<T>, item: T) => {
    const next = new Set(set)
    if (next.has(item)) next.delete(item)
    else next.add(item)
    return next
  }
  const present = () => action.run(async () => {
    if (!credential) throw new Error('Choose a credential to present')
    const attributes = Object.keys(credential.credential_data)
    await presentToRequest(session.client, session.key, {
      requestId: request.id,
      credentialIds: [credential.id],
      reveal: attributes.filter((a) => reveal.has(a)),
      predicates: request.required_predicates.filter((_, i) => predicates.has(i)),
    })
    setStatus('approved')
    return 'Presented: a proof with only what you chose, signed in this browser'
  })
  const reject = () => action.run(async () => {
    await session.client.api.POST('/api/wallet/presentation-requests/{request_id}/reject', { params: { path: { request_id: request.id } }, body: { reason: 'Declined by the holder' } })
    setStatus('rejected')
    return 'Declined'
  })
  const headingId = `request-${request.id}`
  return (
    <article class="entry" aria-labelledby={headingId}>
      <h4 id={headingId}>{request.presentation_type}: {request.purpose}</h4>
      <p>From <code>{request.verifier_did}</code>; your answer: <strong>{status}</strong></p>
      {status === 'pending' && (
        <form onSubmit={(e) => { e.preventDefault(); void present() }}>
          <label>
            Credential to present
            <select value={credential?.id ?? ''} onChange={(e) => setChosen(e.currentTarget.value)}>
              <option value="">Choose a credential</option>
              {usable.map((c) => <option key={c.id} value={c.id}>{c.credential_type} from {c.issuer_name || c.issuer_did}</option>)}
            </select>
          </label>
          {credential && (
            <fieldset>
              <legend>Disclose</legend>
              {Object.keys(credential.credential_data).map((a) => (
                <label key={a} class="check"><input type="checkbox" checked={reveal.has(a)} onChange={() => setReveal(toggle(reveal, a))} /> {a}{required.has(a) ? ' (asked)' : ''}</label>
              ))}
            </fieldset>
          )}
          {request.required_predicates.length > 0 && (
            <fieldset>
              <legend>Prove without disclosing</legend>
              {request.required_predicates.map((p, i) => (
                <label key={i} class="check"><input type="checkbox" checked={predicates.has(i)} onChange={() => setPredicates(toggle(predicates, i))} /> {p.attribute} {p.operator} {String(p.value)}</label>
              ))}
            </fieldset>
          )}
          <div class="actions">
            <button type="submit" disabled={action.busy || !credential}>Present</button>
            <button type="button" disabled={action.busy} onClick={() => void reject()}>Decline</button>
          </div>
        </form>
      )}
      <Outcome action={action} />
    </article>
  )
}

function CredentialRequests({ session }: { session: RoleSession }) {
  const [requests, setRequests] = useState<Array<{ id: string; credential_type: string; issuer_did: string; status: string }>>([])
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/credential-requests', { params: { path: { did: session.did }, query: {} } })
    setRequests((data as unknown as { data: typeof requests }).data ?? [])
  }, 3000, [session.did])
  return (
    <Section id="holder-requests" title="Your credential requests">
      {requests.length === 0 ? <p>None.</p> : (
        <ul>{requests.map((r) => <li key={r.id}>{r.credential_type} from <code>{r.issuer_did}</code>: {r.status}</li>)}</ul>
      )}
    </Section>
  )
}

function Consents({ session }: { session: RoleSession }) {
  const [consents, setConsents] = useState<Array<{ id: string; verifier_did: string; purpose: string; status: string; expiration_policy: string }>>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/consents', { params: { path: { did: session.did }, query: {} } })
    setConsents((data as unknown as { data: typeof consents }).data ?? [])
  }
  usePoll(load, 5000, [session.did])
  const revoke = (id: string) => action.run(async () => {
    await session.client.api.POST('/api/wallet/{did}/consents/{consent_id}/revoke', { params: { path: { did: session.did, consent_id: id } } })
    await load()
    return 'Consent revoked'
  })
  return (
    <Section id="holder-consents" title="Consents">
      {consents.length === 0 ? <p>None.</p> : (
        <ul class="list">
          {consents.map((c) => (
            <li key={c.id}>
              {c.purpose} for <code>{c.verifier_did}</code> ({c.expiration_policy}): {c.status}{' '}
              {c.status === 'active' && <button type="button" disabled={action.busy} onClick={() => void revoke(c.id)}>Revoke consent for {c.purpose}</button>}
            </li>
          ))}
        </ul>
      )}
      <Outcome action={action} />
    </Section>
  )
}

function Activity({ session }: { session: RoleSession }) {
  const [items, setItems] = useState<Array<{ id: string; type: string; created_at: string }>>([])
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/activities', { params: { path: { did: session.did }, query: {} } })
    setItems((data as unknown as { data: typeof items }).data ?? [])
  }, 5000, [session.did])
  return (
    <Section id="holder-activity" title="Activity">
      {items.length === 0 ? <p>Nothing yet.</p> : <ol>{items.map((a) => <li key={a.id}><time dateTime={a.created_at}>{new Date(a.created_at).toLocaleString()}</time>: {a.type.replace(/_/g, ' ')}</li>)}</ol>}
    </Section>
  )
}
