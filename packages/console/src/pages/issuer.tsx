import { ServiceError } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { signChallenge } from '../lib/step-up.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Claims, QrCode, Section, usePoll } from '../ui/layout.tsx'
import { parseAttributeLines, parseJsonObject } from '../lib/forms.ts'

interface SchemaView { id: string; name: string; version: string; attributes: Array<{ name: string; data_type: string; required?: boolean }> }

/** The issuer portal: profile, schemas, templates, issuance, offers as QR codes, holder requests, revocation, statistics. */
export function IssuerPage({ session }: { session: RoleSession }) {
  const [schemas, setSchemas] = useState<SchemaView[]>([])
  const [version, setVersion] = useState(0)
  const refresh = () => setVersion((v) => v + 1)
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/schemas', { params: { path: { did: session.did }, query: { limit: 100 } } })
    setSchemas((data?.data ?? []) as SchemaView[])
  }, 60_000, [session.did, version])
  return (
    <div class="grid">
      <Profile session={session} />
      <Schemas session={session} schemas={schemas} onCreated={refresh} />
      <Templates session={session} schemas={schemas} />
      <Issue session={session} schemas={schemas} />
      <Offers session={session} schemas={schemas} />
      <Requests session={session} />
      <Issued session={session} />
      <Statistics session={session} />
    </div>
  )
}

function Profile({ session }: { session: RoleSession }) {
  const [name, setName] = useState('')
  const [profile, setProfile] = useState<{ name: string } | null>()
  const action = useAction()
  const load = async () => {
    try {
      const { data } = await session.client.api.GET('/api/issuer/{did}', { params: { path: { did: session.did } } })
      setProfile((data as unknown as { issuer: { name: string } }).issuer)
    } catch (error) {
      // 404: no profile yet (the form below makes one); anything else is reported.
      if (error instanceof ServiceError && error.status === 404) setProfile(null)
      else throw error
    }
  }
  usePoll(load, 600_000, [session.did])
  return (
    <Section id="issuer-profile" title="Profile">
      {profile ? (
        <p>Issuing as <strong>{profile.name}</strong>.</p>
      ) : (
        <form onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            await session.client.api.POST('/api/issuer', { body: { name } })
            await load()
            return 'Profile created'
          })
        }}>
          <label>Organisation name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <button type="submit" disabled={action.busy}>Create profile</button>
        </form>
      )}
      <Outcome action={action} />
    </Section>
  )
}

function SchemaSelect({ schemas, value, onChange, label = 'Schema' }: { schemas: SchemaView[]; value: string; onChange: (id: string) => void; label?: string }) {
  return (
    <label>
      {label}
      <select required value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Choose a schema</option>
        {schemas.map((s) => <option key={s.id} value={s.id}>{s.name} {s.version}</option>)}
      </select>
    </label>
  )
}

function Schemas({ session, schemas, onCreated }: { session: RoleSession; schemas: SchemaView[]; onCreated: () => void }) {
  const [name, setName] = useState('')
  const [version, setVersion] = useState('1.0')
  const [attributes, setAttributes] = useState('given_name: string required\ngpa: number')
  const action = useAction()
  return (
    <Section id="issuer-schemas" title="Schemas">
      <form onSubmit={(e) => {
        e.preventDefault()
        void action.run(async () => {
          const { data } = await session.client.api.POST('/api/issuer/{did}/schemas', { params: { path: { did: session.did } }, body: { name, version, attributes: parseAttributeLines(attributes) } })
          onCreated()
          return `Schema ${data!.schema.name} created`
        })
      }}>
        <label>Schema name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>Version <input required value={version} onInput={(e) => setVersion(e.currentTarget.value)} /></label>
        <label>
          Attributes, one a line: name: type [required] (types: string, number, boolean, date, email, url)
          <textarea rows={4} value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>Create schema</button>
      </form>
      <Outcome action={action} />
      <table>
        <caption>Your schemas</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Attributes</th></tr></thead>
        <tbody>
          {schemas.map((s) => (
            <tr key={s.id}><td>{s.name}</td><td>{s.version}</td><td>{s.attributes.map((a) => `${a.name} (${a.data_type})`).join(', ')}</td></tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

function Templates({ session, schemas }: { session: RoleSession; schemas: SchemaView[] }) {
  const [name, setName] = useState('')
  const [schemaId, setSchemaId] = useState('')
  const [type, setType] = useState('')
  const [fixed, setFixed] = useState('{}')
  const [templates, setTemplates] = useState<Array<{ id: string; name: string; credential_type: string }>>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/templates', { params: { path: { did: session.did }, query: {} } })
    setTemplates((data as unknown as { data: Array<{ id: string; name: string; credential_type: string }> }).data ?? [])
  }
  usePoll(load, 600_000, [session.did])
  return (
    <Section id="issuer-templates" title="Templates">
      <form onSubmit={(e) => {
        e.preventDefault()
        void action.run(async () => {
          await session.client.api.POST('/api/issuer/{did}/templates', { params: { path: { did: session.did } }, body: { name, schema_id: schemaId, credential_type: type, fixed_attributes: parseJsonObject(fixed, 'Fixed attributes') } })
          await load()
          return 'Template created'
        })
      }}>
        <label>Template name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <SchemaSelect schemas={schemas} value={schemaId} onChange={setSchemaId} />
        <label>Credential type <input required value={type} onInput={(e) => setType(e.currentTarget.value)} /></label>
        <label>Fixed attributes (JSON) <textarea rows={2} value={fixed} onInput={(e) => setFixed(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy}>Create template</button>
      </form>
      <Outcome action={action} />
      <ul aria-label="Your templates">{templates.map((t) => <li key={t.id}>{t.name}: {t.credential_type}</li>)}</ul>
    </Section>
  )
}

function Issue({ session, schemas }: { session: RoleSession; schemas: SchemaView[] }) {
  const [schemaId, setSchemaId] = useState('')
  const [type, setType] = useState('')
  const [subject, setSubject] = useState('')
  const [attributes, setAttributes] = useState('{}')
  const action = useAction()
  return (
    <Section id="issuer-issue" title="Issue to a DID">
      <form onSubmit={(e) => {
        e.preventDefault()
        void action.run(async () => {
          const { data } = await session.client.api.POST('/api/issuer/{did}/issue', { params: { path: { did: session.did } }, body: { schema_id: schemaId, credential_type: type, subject_did: subject, attributes: parseJsonObject(attributes, 'Attributes') } })
          return `Issued credential ${(data as unknown as { credential: { id: string } }).credential.id}`
        })
      }}>
        <SchemaSelect schemas={schemas} value={schemaId} onChange={setSchemaId} />
        <label>Credential type <input required value={type} onInput={(e) => setType(e.currentTarget.value)} /></label>
        <label>Holder DID <input required value={subject} onInput={(e) => setSubject(e.currentTarget.value)} /></label>
        <label>Attributes (JSON) <textarea rows={3} value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy}>Issue credential</button>
      </form>
      <Outcome action={action} />
    </Section>
  )
}

function Offers({ session, schemas }: { session: RoleSession; schemas: SchemaView[] }) {
  const [schemaId, setSchemaId] = useState('')
  const [type, setType] = useState('')
  const [attributes, setAttributes] = useState('{}')
  const [qr, setQr] = useState<{ image: string; text: string }>()
  const action = useAction()
  return (
    <Section id="issuer-offers" title="Offers">
      <form onSubmit={(e) => {
        e.preventDefault()
        void action.run(async () => {
          const params = { path: { did: session.did } }
          const { data } = await session.client.api.POST('/api/issuer/{did}/offers', { params, body: { schema_id: schemaId, credential_type: type, attributes: parseJsonObject(attributes, 'Attributes') } })
          const offerId = data!.offer.id
          const { data: code } = await session.client.api.GET('/api/issuer/{did}/offers/{offer_id}/qr', { params: { path: { did: session.did, offer_id: offerId } } })
          setQr({ image: code!.qr_image, text: code!.qr_code_data })
          return 'Offer created: a holder scans its QR code, or pastes its text'
        })
      }}>
        <SchemaSelect schemas={schemas} value={schemaId} onChange={setSchemaId} />
        <label>Credential type <input required value={type} onInput={(e) => setType(e.currentTarget.value)} /></label>
        <label>Attributes offered (JSON) <textarea rows={3} value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy}>Create offer</button>
      </form>
      <Outcome action={action} />
      {qr && <QrCode image={qr.image} text={qr.text} label="Credential offer" testId="offer-qr" />}
    </Section>
  )
}

interface RequestView { id: string; holder_did: string; credential_type: string; attributes: Record<string, unknown>; status: string; created_at: string }

function Requests({ session }: { session: RoleSession }) {
  const [requests, setRequests] = useState<RequestView[]>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/requests', { params: { path: { did: session.did }, query: { status: 'pending' } } })
    setRequests((data as unknown as { data: RequestView[] }).data ?? [])
  }
  usePoll(load, 2000, [session.did])
  const path = (id: string) => ({ path: { issuer_did: session.did, request_id: id } })
  const approve = (id: string) => action.run(async () => {
    const { data } = await session.client.api.GET('/api/wallet/issuer/{issuer_did}/request/{request_id}/challenge', { params: path(id) })
    // The step-up proof of key control is signed here, with the key that never leaves the browser.
    const signature = await signChallenge(session.key, data!.challenge)
    await session.client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/approve', { params: path(id), body: { signature, challenge: data!.challenge } })
    await load()
    return 'Approved: the credential is issued to the holder'
  })
  const reject = (id: string) => action.run(async () => {
    await session.client.api.POST('/api/wallet/issuer/{issuer_did}/request/{request_id}/reject', { params: path(id), body: { reason: 'Rejected by the issuer' } })
    await load()
    return 'Rejected'
  })
  return (
    <Section id="issuer-requests" title="Credential requests from holders">
      {requests.length === 0 ? <p>No pending requests.</p> : (
        <ul class="list">
          {requests.map((r) => (
            <li key={r.id}>
              <p><strong>{r.credential_type}</strong> for <code>{r.holder_did}</code></p>
              <Claims claims={r.attributes ?? {}} />
              <div class="actions">
                <button type="button" disabled={action.busy} onClick={() => approve(r.id)}>Approve request {r.credential_type}</button>
                <button type="button" disabled={action.busy} onClick={() => reject(r.id)}>Reject request {r.credential_type}</button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Outcome action={action} />
    </Section>
  )
}

interface IssuedView { id: string; credential_type: string; subject_did?: string; owner_did?: string; status: string }

function Issued({ session }: { session: RoleSession }) {
  const [issued, setIssued] = useState<IssuedView[]>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/credentials', { params: { path: { did: session.did }, query: { limit: 50 } } })
    setIssued((data as unknown as { data: IssuedView[] }).data ?? [])
  }
  usePoll(load, 5000, [session.did])
  const revoke = (id: string) => action.run(async () => {
    await session.client.api.POST('/api/issuer/{did}/credentials/{credential_id}/revoke', { params: { path: { did: session.did, credential_id: id } }, body: {} })
    await load()
    return 'Revoked: its status list bit is set'
  })
  return (
    <Section id="issuer-issued" title="Issued credentials">
      <table>
        <caption>Credentials you issued</caption>
        <thead><tr><th scope="col">Type</th><th scope="col">Holder</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
        <tbody>
          {issued.map((c) => (
            <tr key={c.id}>
              <td>{c.credential_type}</td>
              <td><code>{c.subject_did ?? c.owner_did}</code></td>
              <td>{c.status}</td>
              <td>{c.status !== 'revoked' && <button type="button" disabled={action.busy} onClick={() => revoke(c.id)}>Revoke {c.credential_type}</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Outcome action={action} />
    </Section>
  )
}

function Statistics({ session }: { session: RoleSession }) {
  const [stats, setStats] = useState<Record<string, unknown>>({})
  usePoll(async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/statistics', { params: { path: { did: session.did } } })
    setStats((data as unknown as { statistics: Record<string, unknown> }).statistics ?? {})
  }, 10_000, [session.did])
  return (
    <Section id="issuer-statistics" title="Statistics">
      <Claims claims={stats} empty="No figures yet (create the profile first)." />
    </Section>
  )
}
