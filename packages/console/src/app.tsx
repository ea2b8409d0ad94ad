import { useEffect, useState } from 'preact/hooks'
import type { Role } from './lib/key-store.ts'
import { HolderPage } from './pages/holder.tsx'
import { IssuerPage } from './pages/issuer.tsx'
import { VerifierPage } from './pages/verifier.tsx'
import { SignIn } from './ui/sign-in.tsx'

const ROLES: Array<{ role: Role; label: string; title: string }> = [
  { role: 'issuer', label: 'Issuer', title: 'Issuer portal' },
  { role: 'holder', label: 'Holder', title: 'Holder wallet' },
  { role: 'verifier', label: 'Verifier', title: 'Verifier portal' },
]

/** The role is in the location's fragment (#/issuer…), so each role's page can be linked. */
function roleFromHash(): Role {
  const name = location.hash.replace(/^#\/?/, '')
  return ROLES.find((r) => r.role === name)?.role ?? 'issuer'
}

export function App() {
  const [role, setRole] = useState<Role>(roleFromHash)
  useEffect(() => {
    const onHash = () => setRole(roleFromHash())
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  const current = ROLES.find((r) => r.role === role)!
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <h1>Credential service console</h1>
        <nav aria-label="Role">
          <ul>
            {ROLES.map((r) => (
              <li key={r.role}>
                <a href={`#/${r.role}`} aria-current={r.role === role ? 'page' : undefined}>
                  {r.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <h2>{current.title}</h2>
        <SignIn role={role} key={role}>
          {(session) =>
            role === 'issuer' ? (
              <IssuerPage session={session} />
            ) : role === 'holder' ? (
              <HolderPage session={session} />
            ) : (
              <VerifierPage session={session} />
            )
          }
        </SignIn>
      </main>
      <footer>
        <p>Keys stay in this browser. The console uses the service's public API only.</p>
      </footer>
    </>
  )
}
