import { useState } from 'preact/hooks'
import { Outcome, useAction } from './action.tsx'
import { Monogram, Section } from './layout.tsx'

export interface Organisation {
  name: string
  website?: string | null
}

/**
 * An issuer's or verifier's profile card: its name (and website), which holders see instead of its
 * DID, or the form that creates it. `profile` undefined: still loading; null: none yet.
 */
export function OrganisationProfile(props: {
  id: string
  did: string
  profile: Organisation | null | undefined
  acting: string
  intro: string
  nameLabel: string
  submitLabel: string
  create: (name: string, website: string | undefined) => Promise<void>
}) {
  const { id, did, profile } = props
  const [name, setName] = useState('')
  const [website, setWebsite] = useState('')
  const action = useAction()
  return (
    <Section id={id} title="Profile">
      {profile ? (
        <div class="profile" data-testid={id}>
          <Monogram name={profile.name} />
          <div>
            <p class="profile-name" title={did}>
              {props.acting} <strong>{profile.name}</strong>
            </p>
            {profile.website && (
              <p>
                <a href={profile.website} rel="noreferrer">
                  {profile.website}
                </a>
              </p>
            )}
            <p class="hint">Holders see this name; your DID shows on hover.</p>
          </div>
        </div>
      ) : profile === null ? (
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void action.run(async () => {
              await props.create(name, website || undefined)
              return 'Profile created'
            })
          }}
        >
          <p>{props.intro}</p>
          <label>
            {props.nameLabel}{' '}
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="organization" />
          </label>
          <label>
            Website (optional){' '}
            <input
              type="url"
              value={website}
              onInput={(e) => setWebsite(e.currentTarget.value)}
              placeholder="https://"
            />
          </label>
          <button type="submit" disabled={action.busy}>
            {props.submitLabel}
          </button>
        </form>
      ) : (
        <p>Loading…</p>
      )}
      <Outcome action={action} />
    </Section>
  )
}
