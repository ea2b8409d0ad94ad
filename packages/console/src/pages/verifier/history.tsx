import { useRef, useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Section, usePoll, When } from '../../ui/layout.tsx'
import {
  outcomeLabel,
  outcomeOf,
  OutcomeView,
  predicateText,
  presentationsOf,
  requestDetail,
  type Outcome,
  type RequestView,
} from './outcome.tsx'

/**
 * Every request with its answer: verified or not (with the disclosed claims and the proven
 * predicates), declined by the holder, expired, or still waiting.
 */
export function History({
  session,
  version,
  liveId,
}: {
  session: RoleSession
  version: number
  liveId: string | undefined
}) {
  const [rows, setRows] = useState<Array<{ request: RequestView; outcome: Outcome | undefined }>>([])
  // Settled outcomes do not change: kept, so each poll asks only about open requests.
  const settled = useRef(new Map<string, Outcome>())
  usePoll(
    async () => {
      const { data } = await session.client.api.GET('/api/verifier/{did}/requests', {
        params: { path: { did: session.did }, query: { limit: 20 } },
      })
      const requests = ((data as unknown as { data: RequestView[] }).data ?? []).sort((a, b) =>
        b.created_at.localeCompare(a.created_at),
      )
      const presentations = await presentationsOf(session)
      const next = await Promise.all(
        requests.map(async (request) => {
          const known = settled.current.get(request.id)
          if (known) return { request, outcome: known }
          const presentation = presentations.find((p) => p.request_id === request.id)
          // The request on show above is verified by its live result, not here as well.
          const outcome = await outcomeOf(
            session,
            presentation ? { request } : await requestDetail(session, request.id),
            presentation,
            { verify: request.id !== liveId },
          )
          if (outcome.kind !== 'pending') settled.current.set(request.id, outcome)
          return { request, outcome }
        }),
      )
      setRows(next)
    },
    5000,
    [session.did, version, liveId],
  )
  return (
    <Section id="verifier-history" title="Requests and presentations" wide>
      {rows.length === 0 ? (
        <p>No requests yet.</p>
      ) : (
        <table class="stack" data-testid="verifier-history">
          <caption>Your requests, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Asked</th>
              <th scope="col">Purpose</th>
              <th scope="col">Asked for</th>
              <th scope="col">Answer</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ request, outcome }) => (
              <tr key={request.id}>
                <td data-label="Asked">
                  <When iso={request.created_at} />
                </td>
                <td data-label="Purpose">{request.purpose}</td>
                <td data-label="Asked for">
                  {request.required_credentials
                    .map(
                      (c) =>
                        `${c.credential_type}${c.required_attributes?.length ? ` (${c.required_attributes.join(', ')})` : ''}`,
                    )
                    .join('; ')}
                  {request.required_predicates.length > 0 &&
                    `; ${request.required_predicates.map(predicateText).join(', ')}`}
                </td>
                <td data-label="Answer">
                  <span
                    class={`badge ${outcome?.kind === 'result' ? (outcome.result.is_valid ? 'active' : 'revoked') : outcome?.kind === 'declined' ? 'revoked' : ''}`}
                  >
                    {outcomeLabel(outcome)}
                  </span>
                </td>
                <td data-label="Details">
                  {outcome && outcome.kind !== 'pending' ? (
                    <details>
                      <summary>Show the answer</summary>
                      <OutcomeView outcome={outcome} request={request} />
                    </details>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  )
}
