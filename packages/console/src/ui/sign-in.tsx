import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { Role } from '../lib/key-store.ts'
import { forget, signIn, type RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from './action.tsx'

const NAMES: Record<Role, string> = { issuer: 'issuer', holder: 'holder', verifier: 'verifier' }

/**
 * Sign-in with the role's DID: its key lives in this browser only. A key made before signs in on
 * its own when the page opens; the first sign-in makes one.
 */
export function SignIn({ role, children }: { role: Role; children: (session: RoleSession) => ComponentChildren }) {
  const [session, setSession] = useState<RoleSession>()
  const action = useAction()
  useEffect(() => {
    setSession(undefined)
    void action.run(async () => {
      const found = await signIn(role, { create: false })
      if (found) setSession(found)
    })
  }, [role])
  if (session) {
    return (
      <>
        <div class="identity">
          <p>
            Signed in as <code data-testid={`${role}-did`}>{session.did}</code>
          </p>
          <button type="button" onClick={() => setSession(undefined)}>
            Sign out
          </button>
        </div>
        {children(session)}
      </>
    )
  }
  return (
    <section aria-labelledby="sign-in-title" class="card">
      <h3 id="sign-in-title">Sign in as {NAMES[role]}</h3>
      <p>The key of this DID is made and kept in this browser (not extractable); only signatures leave it.</p>
      <div class="actions">
        <button
          type="button"
          disabled={action.busy}
          onClick={() => action.run(async () => setSession(await signIn(role, { create: true })))}
        >
          Sign in with this browser's DID
        </button>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              await forget(role)
              return `The ${NAMES[role]} key of this browser is deleted.`
            })
          }
        >
          Delete this browser's {NAMES[role]} key
        </button>
      </div>
      <Outcome action={action} />
    </section>
  )
}
