import { useState } from 'preact/hooks'
import { FORMATS } from '../../lib/forms.ts'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { ConfirmButton, Section } from '../../ui/layout.tsx'
import { CredentialFields, useDraft } from './credential-form.tsx'
import type { SchemaView, TemplateView } from './types.ts'

/** Templates: a schema, a type, a format and fixed values that issue and offer then start from. */
export function Templates({
  session,
  schemas,
  templates,
  onChange,
}: {
  session: RoleSession
  schemas: SchemaView[]
  templates: TemplateView[]
  onChange: () => Promise<void>
}) {
  const [name, setName] = useState('')
  const [validity, setValidity] = useState('')
  const state = useDraft(schemas, [])
  const action = useAction()
  const remove = (t: TemplateView) =>
    action.run(async () => {
      await session.client.api.DELETE('/api/issuer/{did}/templates/{template_id}', {
        params: { path: { did: session.did, template_id: t.id } },
      })
      await onChange()
      return `Template ${t.name} deleted`
    })
  const schemaName = (id: string) => schemas.find((s) => s.id === id)?.name ?? id
  return (
    <Section id="issuer-templates" title="Templates">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            const fixed = state.attributes({ partial: true })
            await session.client.api.POST('/api/issuer/{did}/templates', {
              params: { path: { did: session.did } },
              body: {
                name,
                schema_id: state.draft.schemaId,
                credential_type: state.draft.type,
                fixed_attributes: fixed,
                ...(state.draft.format ? { format: state.draft.format } : {}),
                ...(validity ? { validity_days: Number(validity) } : {}),
              },
            })
            await onChange()
            setName('')
            state.reset()
            return 'Template created: choose it when you issue or offer'
          })
        }}
      >
        <label>
          Template name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <CredentialFields state={state} schemas={schemas} templates={[]} withTemplate={false} allOptional />
        <label>
          Valid for (days, optional){' '}
          <input
            type="number"
            min={1}
            max={36500}
            value={validity}
            onInput={(e) => setValidity(e.currentTarget.value)}
          />
        </label>
        <p class="hint">Values filled above are fixed: every credential from this template carries them.</p>
        <button type="submit" disabled={action.busy}>
          Create template
        </button>
      </form>
      <Outcome action={action} />
      <table class="stack" data-testid="issuer-template-table">
        <caption>Your templates</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Schema</th>
            <th scope="col">Format</th>
            <th scope="col">Fixed values</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {templates.map((t) => (
            <tr key={t.id}>
              <td data-label="Name">{t.name}</td>
              <td data-label="Type">{t.credential_type}</td>
              <td data-label="Schema">{schemaName(t.schema_id)}</td>
              <td data-label="Format">{FORMATS.find((f) => f.id === t.format)?.label ?? t.format ?? 'Any'}</td>
              <td data-label="Fixed values">
                {Object.entries(t.fixed_attributes)
                  .map(([k, v]) => `${k}: ${String(v)}`)
                  .join(', ') || 'None'}
              </td>
              <td data-label="Actions">
                <ConfirmButton
                  label={`Delete template ${t.name}`}
                  title={`Delete the template ${t.name}?`}
                  body={<p>Credentials already issued from it stay valid; new issuance can no longer choose it.</p>}
                  confirm="Delete template"
                  disabled={action.busy}
                  onConfirm={() => void remove(t)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}
