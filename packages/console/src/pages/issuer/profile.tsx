import { ServiceError } from '@credential-service/sdk'
import type { RoleSession } from '../../lib/session.ts'
import { OrganisationProfile } from '../../ui/organisation-profile.tsx'
import type { IssuerProfile } from './types.ts'

/** The issuer's name (and website): what holders see instead of its DID. */
export function Profile({
  session,
  profile,
  onChange,
}: {
  session: RoleSession
  profile: IssuerProfile | null | undefined
  onChange: () => Promise<void>
}) {
  return (
    <OrganisationProfile
      id="issuer-profile"
      did={session.did}
      profile={profile}
      acting="Issuing as"
      intro="Name your organisation: holders and verifiers see this name instead of your DID."
      nameLabel="Organisation name"
      submitLabel="Create profile"
      create={async (name, website) => {
        await session.client.api.POST('/api/issuer', { body: { name, ...(website ? { website } : {}) } })
        await onChange()
      }}
    />
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
