import { useState } from 'preact/hooks'
import { FORMATS, localDateTimeToIso } from '../../lib/forms.ts'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { JsonBlock, QrPanel, Section, Tabs, usePoll, When } from '../../ui/layout.tsx'
import { CredentialFields, useDraft } from './credential-form.tsx'
import type { SchemaView, TemplateView } from './types.ts'

interface Created {
  id: string
  type: string
  format: string | null
  expiresAt: string | null
  specText: string
  specImage: string
  uri?: string
  uriImage?: string
  offerObject?: Record<string, unknown>
  txCode?: string
}

interface OfferRow {
  id: string
  credential_type: string
  format: string | null
  status: string
  uses: number
  max_uses: number | null
  expires_at: string | null
  created_at: string
}

const formatLabel = (id: string | null) => FORMATS.find((f) => f.id === (id ?? 'jwt_vc_json'))?.label ?? id ?? ''

/**
 * Offers: a standard OpenID4VCI offer (`openid-credential-offer://`, OID4VCI 1.0 §4.1) any
 * wallet scans, with the spec's JSON beside it; format, expiry, uses and a transaction code
 * (§4.1.1 `tx_code`) the issuer gives the holder apart.
 */
export function Offers({
  session,
  schemas,
  templates,
}: {
  session: RoleSession
  schemas: SchemaView[]
  templates: TemplateView[]
}) {
  const state = useDraft(schemas, templates)
  const [expires, setExpires] = useState('')
  const [txCode, setTxCode] = useState(false)
  const [maxUses, setMaxUses] = useState('1')
  const [created, setCreated] = useState<Created>()
  const [offers, setOffers] = useState<OfferRow[]>([])
  const action = useAction()
  const load = async () => {
    const { data } = await session.client.api.GET('/api/issuer/{did}/offers', {
      params: { path: { did: session.did }, query: { limit: 20 } },
    })
    setOffers((data as unknown as { data: OfferRow[] }).data ?? [])
  }
  usePoll(load, 10_000, [session.did])
  const chosenFormat = state.template?.format ?? (state.draft.format || null)
  const standard = FORMATS.find((f) => f.id === (chosenFormat ?? 'jwt_vc_json'))?.oid4vci ?? false
  const create = () =>
    action.run(async () => {
      const { draft } = state
      const expiresAt = localDateTimeToIso(expires)
      const { data } = await session.client.api.POST('/api/issuer/{did}/offers', {
        params: { path: { did: session.did } },
        body: {
          schema_id: state.schema?.id ?? draft.schemaId,
          credential_type: draft.type,
          attributes: state.attributes(),
          ...(draft.templateId ? { template_id: draft.templateId } : {}),
          ...(draft.format && !state.template?.format ? { format: draft.format } : {}),
          ...(expiresAt ? { expires_at: expiresAt } : {}),
          ...(maxUses ? { max_uses: Number(maxUses) } : {}),
          ...(txCode && standard ? { tx_code: true } : {}),
        },
      })
      const answer = data as unknown as {
        offer: { id: string; format: string | null; expires_at: string | null }
        qr_code_data: string
        credential_offer_uri?: string
        credential_offer_qr?: string
        credential_offer?: Record<string, unknown>
        tx_code?: string
      }
      const { data: spec } = await session.client.api.GET('/api/issuer/{did}/offers/{offer_id}/qr', {
        params: { path: { did: session.did, offer_id: answer.offer.id } },
      })
      setCreated({
        id: answer.offer.id,
        type: draft.type,
        format: answer.offer.format,
        expiresAt: answer.offer.expires_at,
        specText: spec!.qr_code_data,
        specImage: spec!.qr_image,
        ...(answer.credential_offer_uri
          ? {
              uri: answer.credential_offer_uri,
              uriImage: answer.credential_offer_qr!,
              offerObject: answer.credential_offer!,
            }
          : {}),
        ...(answer.tx_code ? { txCode: answer.tx_code } : {}),
      })
      await load()
      return answer.credential_offer_uri
        ? 'Offer created: a wallet scans its QR code'
        : "Offer created (this service's QR code only)"
    })
  return (
    <Section id="issuer-offers" title="Offers">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void create()
        }}
      >
        <CredentialFields state={state} schemas={schemas} templates={templates} />
        <div class="row">
          <label>
            Offer expires (optional){' '}
            <input type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
          </label>
          <label>
            Uses{' '}
            <input
              type="number"
              min={1}
              max={1000000}
              value={maxUses}
              onInput={(e) => setMaxUses(e.currentTarget.value)}
              size={6}
            />
          </label>
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={txCode}
            disabled={!standard}
            onChange={(e) => setTxCode(e.currentTarget.checked)}
          />
          Ask for a transaction code (you give it to the holder separately)
        </label>
        {!standard && <p class="hint">This format has no OpenID4VCI offer: only this service's QR code is made.</p>}
        <button type="submit" disabled={action.busy}>
          Create offer
        </button>
      </form>
      <Outcome action={action} />
      {created && <CreatedOffer created={created} key={created.id} />}
      <table class="stack" data-testid="issuer-offer-table">
        <caption>Recent offers</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Format</th>
            <th scope="col">Status</th>
            <th scope="col">Uses</th>
            <th scope="col">Expires</th>
          </tr>
        </thead>
        <tbody>
          {offers.map((o) => (
            <tr key={o.id}>
              <td data-label="Type">{o.credential_type}</td>
              <td data-label="Format">{formatLabel(o.format)}</td>
              <td data-label="Status">
                <span class={`badge ${o.status}`}>{o.status}</span>
              </td>
              <td data-label="Uses">
                {o.uses}
                {o.max_uses ? ` of ${o.max_uses}` : ''}
              </td>
              <td data-label="Expires">{o.expires_at ? <When iso={o.expires_at} /> : 'Never'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

function CreatedOffer({ created }: { created: Created }) {
  const specTab = {
    id: 'spec',
    title: "This service's JSON",
    content: (
      <QrPanel
        image={created.specImage}
        text={created.specText}
        label="Credential offer (this service's JSON)"
        testId="offer-qr-json"
      />
    ),
  }
  return (
    <div class="created" data-testid="offer-created">
      <h4>Offer of {created.type}</h4>
      <p>
        {formatLabel(created.format)};{' '}
        {created.expiresAt ? (
          <>
            expires <When iso={created.expiresAt} />
          </>
        ) : (
          'no expiry'
        )}
        .
      </p>
      {created.txCode && (
        <p class="tx-code" role="note">
          Transaction code: <strong data-testid="offer-tx-code">{created.txCode}</strong>. Give it to the holder apart
          from the QR code (in person, by phone or letter); it is shown only now.
        </p>
      )}
      {created.uri ? (
        <Tabs
          label="Offer as"
          tabs={[
            {
              id: 'uri',
              title: 'Wallet QR (OpenID4VCI)',
              content: (
                <QrPanel
                  image={created.uriImage!}
                  text={created.uri}
                  label="Credential offer (openid-credential-offer URI)"
                  testId="offer-qr"
                  link
                />
              ),
            },
            {
              id: 'json',
              title: 'Offer JSON (OpenID4VCI)',
              content: (
                <JsonBlock value={created.offerObject} label="Credential offer object (OpenID4VCI 1.0 §4.1.1)" />
              ),
            },
            specTab,
          ]}
        />
      ) : (
        <>
          <p class="hint">
            No OpenID4VCI offer: the service is not served over https, or the format has no OpenID4VCI configuration.
          </p>
          {specTab.content}
        </>
      )}
    </div>
  )
}
