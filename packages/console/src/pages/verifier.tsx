import { useState } from 'preact/hooks'
import { parseList, parsePredicateLines } from '../lib/forms.ts'
import type { RoleSession } from '../lib/session.ts'
import { Outcome, useAction } from '../ui/action.tsx'
import { Claims, QrCode, Section, usePoll } from '../ui/layout.tsx'

interface Created { id: string; image: string; text: string }
interface Result { is_valid: boolean; errors: string[]; credential_subjects: Array<Record<string, unknown>>; prover_did: string }

/** The verifier portal: a request shown as a QR code, then its result as it arrives. */
export function VerifierPage({ session }: { session: RoleSession }) {
  const [type, setType] = useState('UniversityDegree')
  const [purpose, setPurpose] = useState('')
  const [attributes, setAttributes] = useState('given_name')
  const [predicates, setPredicates] = useState('gpa >= 3')
  const [created, setCreated] = useState<Created>()
  const action = useAction()
  const create = () => action.run(async () => {
    const { data } = await session.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: session.did,
        presentation_type: `${type}Check`,
        purpose,
        required_credentials: [{ credential_type: type, required_attributes: parseList(attributes) }],
        required_predicates: parsePredicateLines(predicates),
      },
    })
    const requestId = data!.request.id
    const { data: qr } = await session.client.api.POST('/api/qr/presentation-request', { body: { request_id: requestId } })
    setCreated({ id: requestId, image: qr!.qr_image, text: qr!.qr_code_data })
    return 'Request created: show its QR code to the holder'
  })
  return (
    <div class="grid">
      <Section id="verifier-create" title="Request a presentation">
        <form onSubmit={(e) => { e.preventDefault(); void create() }}>
          <label>Credential type <input required value={type} onInput={(e) => setType(e.currentTarget.value)} /></label>
          <label>Purpose <input required value={purpose} onInput={(e) => setPurpose(e.currentTarget.value)} /></label>
          <label>Attributes to disclose (comma-separated) <input value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} /></label>
          <label>
            Predicates, one a line (e.g. gpa &gt;= 3)
            <textarea rows={2} value={predicates} onInput={(e) => setPredicates(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={action.busy}>Create request</button>
        </form>
        <Outcome action={action} />
        {created && <QrCode image={created.image} text={created.text} label="Presentation request" testId="request-qr" />}
      </Section>
      {created && <LiveResult session={session} requestId={created.id} key={created.id} />}
    </div>
  )
}

/**
 * Polls the request until the holder answers, then verifies the presentation it received (the
 * verify route checks signatures, nonce, status, predicates and consent) and shows the result.
 */
function LiveResult({ session, requestId }: { session: RoleSession; requestId: string }) {
  const [status, setStatus] = useState('pending')
  const [result, setResult] = useState<Result>()
  const [error, setError] = useState<string>()
  usePoll(async () => {
    if (result || error) return
    const { data } = await session.client.api.GET('/api/verifier/requests/{id}', { params: { path: { id: requestId } } })
    const state = data!.request.status
    setStatus(state)
    if (state === 'pending' || state === 'expired' || state === 'rejected') return
    const { data: listed } = await session.client.api.GET('/api/verifier/{did}/presentations', { params: { path: { did: session.did }, query: { limit: 100 } } })
    const found = listed!.presentations.find((p) => p.request_id === requestId)
    if (!found) return
    const stored = found.verification_result as unknown as Result | null
    if (stored && 'credential_subjects' in stored) {
      setResult(stored)
      return
    }
    const { data: one } = await session.client.api.GET('/api/verifier/presentations/{id}', { params: { path: { id: found.id } } })
    // The VP as the holder submitted it: the verify route checks that text.
    const presentationJwt = (one!.presentation as { presentation_jwt?: string }).presentation_jwt
    if (!presentationJwt) throw new Error('The service did not return the presentation it received')
    try {
      const { data: verified } = await session.client.api.POST('/api/verifier/presentations/{id}/verify', { params: { path: { id: found.id } }, body: { presentation_jwt: presentationJwt } })
      setResult(verified!.verification_result as unknown as Result)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }, 1000, [requestId])
  return (
    <Section id="verifier-result" title="Result">
      <div aria-live="polite" data-testid="verifier-result">
        {!result && !error && <p>Request status: <strong>{status}</strong>{status === 'pending' ? ': waiting for the holder…' : ''}</p>}
        {error && <p role="alert" class="error">{error}</p>}
        {result && (
          <>
            <p class={result.is_valid ? 'ok' : 'error'}>
              <strong data-testid="is-valid">{result.is_valid ? 'Verified: is_valid true' : 'Not valid: is_valid false'}</strong> (holder <code>{result.prover_did}</code>)
            </p>
            {result.errors.length > 0 && <ul>{result.errors.map((e) => <li key={e}>{e}</li>)}</ul>}
            <h4>Disclosed claims</h4>
            {result.credential_subjects.map((claims, i) => <Claims key={i} claims={claims} />)}
          </>
        )}
      </div>
    </Section>
  )
}
