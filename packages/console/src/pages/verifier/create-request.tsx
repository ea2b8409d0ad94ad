import { useState } from 'preact/hooks'
import { OPERATORS, parseList, predicateValue, type Operator } from '../../lib/forms.ts'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { JsonBlock, QrPanel, Section, Tabs } from '../../ui/layout.tsx'

export interface Created {
  id: string
  specText: string
  specImage: string
  uri?: string
  uriImage?: string
  openid4vp?: Record<string, unknown>
}

interface PredicateRow {
  key: number
  attribute: string
  operator: Operator
  value: string
}
let nextKey = 0

const VALIDITY = [
  { minutes: 5, label: '5 minutes' },
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 1440, label: '1 day' },
]

/**
 * A presentation request: what to disclose and which predicates to prove, shown as an
 * OpenID4VP Authorization Request (`openid4vp://`, OID4VP 1.0 §5) any wallet scans, with the
 * service's JSON beside it.
 */
export function CreateRequest({
  session,
  created,
  onCreated,
}: {
  session: RoleSession
  created: Created | undefined
  onCreated: (c: Created) => void
}) {
  const [type, setType] = useState('UniversityDegree')
  const [purpose, setPurpose] = useState('')
  const [attributes, setAttributes] = useState('given_name')
  const [predicates, setPredicates] = useState<PredicateRow[]>([
    { key: nextKey++, attribute: 'gpa', operator: '>=', value: '3' },
  ])
  const [validity, setValidity] = useState(15)
  const action = useAction()
  const update = (key: number, change: Partial<PredicateRow>) =>
    setPredicates(predicates.map((p) => (p.key === key ? { ...p, ...change } : p)))
  const create = () =>
    action.run(async () => {
      const { data } = await session.client.api.POST('/api/verifier/requests', {
        body: {
          verifier_did: session.did,
          presentation_type: `${type}Check`,
          purpose,
          required_credentials: [{ credential_type: type, required_attributes: parseList(attributes) }],
          required_predicates: predicates
            .filter((p) => p.attribute.trim())
            .map((p) => ({ attribute: p.attribute.trim(), operator: p.operator, value: predicateValue(p.value) })),
          expires_at: new Date(Date.now() + validity * 60_000).toISOString(),
        },
      })
      const answer = data as unknown as {
        request: { id: string }
        authorization_request_uri?: string
        authorization_request_qr?: string
        openid4vp?: Record<string, unknown>
      }
      const { data: qr } = await session.client.api.POST('/api/qr/presentation-request', {
        body: { request_id: answer.request.id },
      })
      onCreated({
        id: answer.request.id,
        specText: qr!.qr_code_data,
        specImage: qr!.qr_image,
        ...(answer.authorization_request_uri
          ? {
              uri: answer.authorization_request_uri,
              uriImage: answer.authorization_request_qr!,
              openid4vp: answer.openid4vp!,
            }
          : {}),
      })
      return 'Request created: show its QR code to the holder'
    })
  return (
    <Section id="verifier-create" title="Request a presentation">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void create()
        }}
      >
        <label>
          Credential type <input required value={type} onInput={(e) => setType(e.currentTarget.value)} />
        </label>
        <label>
          Purpose{' '}
          <input
            required
            value={purpose}
            onInput={(e) => setPurpose(e.currentTarget.value)}
            placeholder="Shown to the holder, e.g. Hiring"
          />
        </label>
        <label>
          Attributes to disclose (comma-separated names){' '}
          <input value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>Predicates</legend>
          <p class="hint">
            Through this service's own QR code the holder proves them without disclosing the value; an OpenID4VP wallet
            discloses the attribute, which is then compared.
          </p>
          <ol class="attribute-rows">
            {predicates.map((p, i) => (
              <li key={p.key} class="attribute-row">
                <label>
                  Predicate {i + 1} attribute{' '}
                  <input value={p.attribute} onInput={(e) => update(p.key, { attribute: e.currentTarget.value })} />
                </label>
                <label>
                  Predicate {i + 1} comparison
                  <select
                    value={p.operator}
                    onChange={(e) => update(p.key, { operator: e.currentTarget.value as Operator })}
                  >
                    {OPERATORS.map((o) => (
                      <option key={o} value={o}>
                        {o === '>=' ? 'at least' : o === '>' ? 'more than' : o === '<=' ? 'at most' : 'less than'} ({o})
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Predicate {i + 1} value{' '}
                  <input
                    value={p.value}
                    onInput={(e) => update(p.key, { value: e.currentTarget.value })}
                    placeholder="3 or 2008-01-01"
                  />
                </label>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setPredicates(predicates.filter((x) => x.key !== p.key))}
                >
                  Remove predicate {i + 1}
                </button>
              </li>
            ))}
          </ol>
          <button
            type="button"
            class="secondary"
            onClick={() => setPredicates([...predicates, { key: nextKey++, attribute: '', operator: '>=', value: '' }])}
          >
            Add a predicate
          </button>
        </fieldset>
        <label>
          Valid for
          <select value={validity} onChange={(e) => setValidity(Number(e.currentTarget.value))}>
            {VALIDITY.map((v) => (
              <option key={v.minutes} value={v.minutes}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={action.busy}>
          Create request
        </button>
      </form>
      <Outcome action={action} />
      {created && <CreatedRequest created={created} key={created.id} />}
    </Section>
  )
}

function CreatedRequest({ created }: { created: Created }) {
  const spec = (
    <QrPanel
      image={created.specImage}
      text={created.specText}
      label="Presentation request (this service's JSON)"
      testId="request-qr-json"
    />
  )
  if (!created.uri) {
    return (
      <div class="created">
        <p class="hint">
          No OpenID4VP request: the service is not served over https, or DCQL cannot express this request.
        </p>
        {spec}
      </div>
    )
  }
  return (
    <div class="created" data-testid="request-created" data-request-id={created.id}>
      <Tabs
        label="Request as"
        tabs={[
          {
            id: 'uri',
            title: 'Wallet QR (OpenID4VP)',
            content: (
              <QrPanel
                image={created.uriImage!}
                text={created.uri}
                label="Presentation request (openid4vp URI)"
                testId="request-qr"
                link
              />
            ),
          },
          {
            id: 'json',
            title: 'Request JSON (OpenID4VP)',
            content: <JsonBlock value={created.openid4vp} label="OpenID4VP request parameters" />,
          },
          { id: 'spec', title: "This service's JSON", content: spec },
        ]}
      />
    </div>
  )
}
