import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { usePoll } from '../ui/layout.tsx'
import { Issue } from './issuer/issue.tsx'
import { Issued } from './issuer/issued.tsx'
import { Offers } from './issuer/offers.tsx'
import { loadProfile, Profile } from './issuer/profile.tsx'
import { Requests } from './issuer/requests.tsx'
import { Schemas } from './issuer/schemas.tsx'
import { Statistics } from './issuer/statistics.tsx'
import { Templates } from './issuer/templates.tsx'
import type { IssuerProfile, SchemaView, TemplateView } from './issuer/types.ts'

/** The issuer portal: profile, statistics, offers as OpenID4VCI QR codes, issuance, holder requests, issued credentials, templates and schemas. */
export function IssuerPage({ session }: { session: RoleSession }) {
  const [profile, setProfile] = useState<IssuerProfile | null>()
  const [schemas, setSchemas] = useState<SchemaView[]>([])
  const [templates, setTemplates] = useState<TemplateView[]>([])
  const [version, setVersion] = useState(0)
  const bump = () => setVersion((v) => v + 1)
  const loadTemplates = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/templates', {
      params: { path: { did: session.did }, query: { limit: 100 } },
    })
    setTemplates((data as unknown as { data: TemplateView[] }).data ?? [])
  }
  usePoll(async () => setProfile(await loadProfile(session)), 600_000, [session.did])
  usePoll(
    async () => {
      if (!profile) return
      const { data } = await session.client.api.GET('/api/issuer/{did}/schemas', {
        params: { path: { did: session.did }, query: { limit: 100 } },
      })
      setSchemas((data?.data ?? []) as SchemaView[])
      await loadTemplates()
    },
    60_000,
    [session.did, version, Boolean(profile)],
  )
  return (
    <div class="grid">
      <Profile session={session} profile={profile} onChange={async () => setProfile(await loadProfile(session))} />
      {profile && (
        <>
          <Statistics session={session} version={version} />
          <Offers session={session} schemas={schemas} templates={templates} />
          <Issue session={session} schemas={schemas} templates={templates} onIssued={bump} />
          <Requests session={session} onDone={bump} />
          <Issued session={session} version={version} />
          <Templates session={session} schemas={schemas} templates={templates} onChange={loadTemplates} />
          <Schemas session={session} schemas={schemas} onCreated={bump} />
        </>
      )}
    </div>
  )
}
