import { ServiceError } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { Monogram, Section } from '../../ui/layout.tsx'
import type { IssuerProfile } from './types.ts'

/** The issuer's name (and website): what holders see instead of its DID. */
export function Profile({ session, profile, onChange }: { session: RoleSession; profile: IssuerProfile | null | undefined; onChange: () => Promise<void> }) {
  const [name, setName] = useState('')
  const [website, setWebsite] = useState('')
  const action = useAction()
  return (
    <Section id="issuer-profile" title="Profile">
      {profile ? (
        <div class="profile" data-testid="issuer-profile">
          <Monogram name={profile.name} />
          <div>
            <p class="profile-name" title={session.did}>Issuing as <strong>{profile.name}</strong></p>
            {profile.website && <p><a href={profile.website} rel="noreferrer">{profile.website}</a></p>}
            <p class="hint">Holders see this name; your DID shows on hover.</p>
          </div>
        </div>
      ) : profile === null ? (
        <form onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            await session.client.api.POST('/api/issuer', { body: { name, ...(website ? { website } : {}) } })
            await onChange()
            return 'Profile created'
          })
        }}>
          <p>Name your organisation: holders and verifiers see this name instead of your DID.</p>
          <label>Organisation name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="organization" /></label>
          <label>Website (optional) <input type="url" value={website} onInput={(e) => setWebsite(e.currentTarget.value)} placeholder="https://" /></label>
          <button type="submit" disabled={action.busy}>Create profile</button>
        </form>
      ) : <p>Loading…</p>}
      <Outcome action={action} />
    </Section>
  )
}

/** The profile, or null when there is none yet (404). */
export async function loadProfile(session: RoleSession): Promise<IssuerProfile | null> {
  try {
    const { data } = await session.client.api.GET('/api/issuer/{did}', { params: { path: { did: session.did } } })
    return (data as unknown as { issuer: IssuerProfile }).issuer
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) return null
    throw error
  }
}
