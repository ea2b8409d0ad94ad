import { useState } from 'preact/hooks'
import type { RoleSession } from '../lib/session.ts'
import { CreateRequest, type Created } from './verifier/create-request.tsx'
import { History } from './verifier/history.tsx'
import { LiveResult } from './verifier/live-result.tsx'
import { Profile } from './verifier/profile.tsx'

/** The verifier portal: profile, a request shown as an OpenID4VP QR code, its live result, and the history of requests and answers. */
export function VerifierPage({ session }: { session: RoleSession }) {
  const [created, setCreated] = useState<Created>()
  const [version, setVersion] = useState(0)
  return (
    <div class="grid">
      <CreateRequest
        session={session}
        created={created}
        onCreated={(c) => {
          setCreated(c)
          setVersion((v) => v + 1)
        }}
      />
      {created && (
        <LiveResult
          session={session}
          requestId={created.id}
          key={created.id}
          onSettled={() => setVersion((v) => v + 1)}
        />
      )}
      <Profile session={session} />
      <History session={session} version={version} liveId={created?.id} />
    </div>
  )
}
