import { ServiceError } from '@credential-service/sdk'
import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { usePoll } from '../../ui/layout.tsx'
import { OrganisationProfile } from '../../ui/organisation-profile.tsx'

interface VerifierProfile {
  did: string
  name: string
  website: string | null
}

/** The verifier's name: what a holder's wallet shows instead of a DID. */
export function Profile({ session }: { session: RoleSession }) {
  const [profile, setProfile] = useState<VerifierProfile | null>()
  const load = async () => {
    try {
      const { data } = await session.client.api.GET('/api/verifier/{did}/profile', {
        params: { path: { did: session.did } },
      })
      setProfile((data as unknown as { verifier: VerifierProfile }).verifier)
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) setProfile(null)
      else throw error
    }
  }
  usePoll(load, 600_000, [session.did])
  return (
    <OrganisationProfile
      id="verifier-profile"
      did={session.did}
      profile={profile}
      acting="Verifying as"
      intro="Name your organisation: holders see this name when you ask them for a credential."
      nameLabel="Verifier name"
      submitLabel="Create verifier profile"
      create={async (name, website) => {
        await session.client.api.POST('/api/verifier', { body: { name: name.trim(), ...(website ? { website } : {}) } })
        await load()
      }}
    />
  )
}
