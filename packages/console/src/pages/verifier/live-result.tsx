import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Section, usePoll } from '../../ui/layout.tsx'
import { outcomeOf, OutcomeView, presentationsOf, requestDetail, type Outcome, type RequestView } from './outcome.tsx'

/** Follows the request just made until the holder answers or declines, then shows the result (no reload). */
export function LiveResult({
  session,
  requestId,
  onSettled,
}: {
  session: RoleSession
  requestId: string
  onSettled: () => void
}) {
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'pending', status: 'pending' })
  const [request, setRequest] = useState<RequestView>()
  usePoll(
    async () => {
      if (
        outcome.kind === 'result' ||
        outcome.kind === 'declined' ||
        outcome.kind === 'error' ||
        outcome.kind === 'expired'
      )
        return
      const detail = await requestDetail(session, requestId)
      setRequest(detail.request)
      const open = detail.request.status === 'pending' && !detail.openid4vp?.answer
      const presentation = open ? undefined : (await presentationsOf(session)).find((p) => p.request_id === requestId)
      const next = await outcomeOf(session, detail, presentation)
      setOutcome(next)
      if (next.kind !== 'pending') onSettled()
    },
    1000,
    [requestId],
  )
  return (
    <Section id="verifier-result" title="Result">
      <div aria-live="polite" data-testid="verifier-result">
        {request ? (
          <OutcomeView outcome={outcome} request={request} />
        ) : (
          <p>
            Request status: <strong>pending</strong>: waiting for the holder…
          </p>
        )}
      </div>
    </Section>
  )
}
