import { useCallback, useMemo, useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { usePoll } from '../ui/layout.tsx'
import { Activity } from './activity.tsx'
import { Credentials } from './credentials.tsx'
import { clientIdName, domainOf, isUrl, shortDid, type NameOf } from './format.ts'
import { Inbox } from './inbox.tsx'
import { credentialTitle } from './mdoc.ts'
import { OfferConsent } from './offer-consent.tsx'
import { RequestConsent } from './request-consent.tsx'
import { CredentialRequests, Consents } from './requests-consents.tsx'
import { Scan, type Pending } from './scan.tsx'
import type { CredentialView, RequestView } from './types.ts'
import './holder.css'

/**
 * The holder wallet: scan (camera or image) or paste offers and requests, decide on each in a
 * consent screen before anything leaves, the credentials (detail, share, delete), the inbox of
 * the service's own requests, consents and the activity log.
 */
export function HolderPage({ session }: { session: RoleSession }) {
  const [credentials, setCredentials] = useState<CredentialView[]>([])
  const [inbox, setInbox] = useState<RequestView[]>(() => loadInbox(session.did))
  const [pending, setPending] = useState<Pending>()
  const [notice, setNotice] = useState<{ text: string; link?: string }>()
  const [names, setNames] = useState<Record<string, string>>({})
  const loadCredentials = useCallback(async () => {
    const { data } = await session.client.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did: session.did }, query: { limit: 100 } },
    })
    const list = (data?.data ?? []) as unknown as CredentialView[]
    setCredentials(list)
    // Issuer names stay known after their credential is deleted (the activity still names them).
    // An imported credential's issuer_name may be the issuer's URL: not a name (the offer preview's name stays).
    const seen = Object.fromEntries(
      list.filter((c) => c.issuer_name && !isUrl(c.issuer_name)).map((c) => [c.issuer_did, c.issuer_name]),
    )
    setNames((n) => (Object.entries(seen).every(([did, name]) => n[did] === name) ? n : { ...n, ...seen }))
  }, [session.did])
  usePoll(loadCredentials, 2000, [session.did])

  /** Names the wallet has seen (issuers of its credentials, verifiers of its requests); the DID shortened otherwise. */
  const nameOf: NameOf = useMemo(() => {
    const known: Record<string, string> = { ...names }
    for (const r of inbox) if (r.verifier_name) known[r.verifier_did] = r.verifier_name
    const lookup: NameOf = (id) => {
      if (!id) return 'an unnamed party'
      if (known[id]) return known[id]
      if (id !== clientIdName(id)) return lookup(clientIdName(id))
      if (isUrl(id)) return domainOf(id)
      return id.startsWith('did:') ? shortDid(id) : id
    }
    return lookup
  }, [inbox, names])

  const addToInbox = (request: RequestView) => {
    const next = [request, ...inbox.filter((r) => r.id !== request.id)]
    setInbox(next)
    saveInbox(session.did, next)
  }
  const open = (p: Pending | null) => {
    setNotice(undefined)
    setPending(p ?? undefined)
    if (!p) return
    if (p.kind === 'request' && p.preview.verifierIdentity?.name) {
      const identity = p.preview.verifierIdentity
      setNames((n) => ({ ...n, [p.preview.verifier]: identity.name!, [identity.client_id]: identity.name! }))
    }
    if (p.kind === 'offer' && p.preview.issuer.name) {
      const issuer = p.preview.issuer
      setNames((n) => ({
        ...n,
        [p.preview.credential_issuer]: issuer.name!,
        ...(issuer.did ? { [issuer.did]: issuer.name! } : {}),
      }))
    }
  }
  const done = (message: string, link?: string) => {
    setPending(undefined)
    setNotice({ text: message, ...(link ? { link } : {}) })
    void loadCredentials()
  }
  return (
    <div class="grid holder">
      {/* The decision comes first: a consent screen opens above everything else. */}
      {pending?.kind === 'request' && (
        <RequestConsent
          key={pending.preview.sessionId}
          preview={pending.preview}
          deviceKeyMissing={pending.deviceKeyMissing}
          nameOf={nameOf}
          onDone={done}
        />
      )}
      {pending?.kind === 'offer' && (
        <OfferConsent
          key={pending.offerUri}
          session={session}
          offerUri={pending.offerUri}
          preview={pending.preview}
          onDone={done}
        />
      )}
      <Scan session={session} notice={notice} onRequest={addToInbox} onPending={open} />
      <Credentials session={session} credentials={credentials} nameOf={nameOf} onChanged={loadCredentials} />
      <Inbox session={session} inbox={inbox} credentials={credentials} />
      <Activity
        session={session}
        nameOf={nameOf}
        typeOf={(id) => {
          const credential = credentials.find((c) => c.id === id)
          return credential && credentialTitle(credential)
        }}
      />
      <CredentialRequests session={session} nameOf={nameOf} />
      <Consents session={session} nameOf={nameOf} />
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
