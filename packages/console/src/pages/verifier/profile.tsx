import { ServiceError } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { Monogram, Section, usePoll } from '../../ui/layout.tsx'

interface VerifierProfile { did: string; name: string; website: string | null }

/** The verifier's name: what a holder's wallet shows instead of a DID. */
export function Profile({ session }: { session: RoleSession }) {
  const [profile, setProfile] = useState<VerifierProfile | null>()
  const [name, setName] = useState('')
  const [website, setWebsite] = useState('')
  const action = useAction()
  const load = async () => {
    try {
      const { data } = await session.client.api.GET('/api/verifier/{did}/profile', { params: { path: { did: session.did } } })
      setProfile((data as unknown as { verifier: VerifierProfile }).verifier)
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) setProfile(null)
      else throw error
    }
  }
  usePoll(load, 600_000, [session.did])
  return (
    <Section id="verifier-profile" title="Profile">
      {profile ? (
        <div class="profile" data-testid="verifier-profile">
          <Monogram name={profile.name} />
          <div>
            <p class="profile-name" title={session.did}>Verifying as <strong>{profile.name}</strong></p>
            {profile.website && <p><a href={profile.website} rel="noreferrer">{profile.website}</a></p>}
            <p class="hint">Holders see this name; your DID shows on hover.</p>
          </div>
        </div>
      ) : profile === null ? (
        <form onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            await session.client.api.POST('/api/verifier', { body: { name: name.trim(), ...(website ? { website } : {}) } })
            await load()
            return 'Profile created'
          })
        }}>
          <p>Name your organisation: holders see this name when you ask them for a credential.</p>
          <label>Verifier name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="organization" /></label>
          <label>Website (optional) <input type="url" value={website} onInput={(e) => setWebsite(e.currentTarget.value)} placeholder="https://" /></label>
          <button type="submit" disabled={action.busy}>Create verifier profile</button>
        </form>
      ) : <p>Loading…</p>}
      <Outcome action={action} />
    </Section>
  )
}
