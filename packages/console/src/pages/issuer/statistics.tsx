import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Figures, Section, usePoll } from '../../ui/layout.tsx'

interface Stats {
  issued: number
  active: number
  revoked: number
  by_type: Record<string, number>
  requests_pending: number
  requests_approved: number
  requests_rejected: number
  offers_active: number
}

/** The issuer's figures, each under a readable label. */
export function Statistics({ session, version }: { session: RoleSession; version: number }) {
  const [stats, setStats] = useState<Stats>()
  usePoll(
    async () => {
      const { data } = await session.client.api.GET('/api/issuer/{did}/statistics', {
        params: { path: { did: session.did } },
      })
      setStats((data as unknown as { statistics: Stats }).statistics)
    },
    10_000,
    [session.did, version],
  )
  return (
    <Section id="issuer-statistics" title="Statistics">
      {!stats ? (
        <p>No figures yet (create the profile first).</p>
      ) : (
        <>
          <Figures
            label="Credentials"
            items={[
              { label: 'Issued', value: stats.issued },
              { label: 'Active', value: stats.active },
              { label: 'Revoked', value: stats.revoked },
              { label: 'Open offers', value: stats.offers_active },
              { label: 'Requests waiting', value: stats.requests_pending },
              { label: 'Requests approved', value: stats.requests_approved },
              { label: 'Requests rejected', value: stats.requests_rejected },
            ]}
          />
          {Object.keys(stats.by_type).length > 0 && (
            <table class="stack">
              <caption>Issued by credential type</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Issued</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(stats.by_type).map(([type, n]) => (
                  <tr key={type}>
                    <td data-label="Type">{type}</td>
                    <td data-label="Issued">{n}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Section>
  )
}
