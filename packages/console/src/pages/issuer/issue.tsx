import { useState } from 'preact/hooks'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { Section } from '../../ui/layout.tsx'
import { CredentialFields, useDraft } from './credential-form.tsx'
import type { SchemaView, TemplateView } from './types.ts'

/** Issue straight to a holder's DID, from a template or a schema's form. */
export function Issue({
  session,
  schemas,
  templates,
  onIssued,
}: {
  session: RoleSession
  schemas: SchemaView[]
  templates: TemplateView[]
  onIssued: () => void
}) {
  const [subject, setSubject] = useState('')
  const [expires, setExpires] = useState('')
  const state = useDraft(schemas, templates)
  const action = useAction()
  return (
    <Section id="issuer-issue" title="Issue to a holder">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            const { draft } = state
            const { data } = await session.client.api.POST('/api/issuer/{did}/issue', {
              params: { path: { did: session.did } },
              body: {
                schema_id: state.schema?.id ?? draft.schemaId,
                credential_type: draft.type,
                subject_did: subject.trim(),
                attributes: state.attributes(),
                ...(draft.templateId ? { template_id: draft.templateId } : {}),
                ...(draft.format && !state.template?.format ? { format: draft.format } : {}),
                ...(expires ? { expiration_date: new Date(`${expires}T23:59:59`).toISOString() } : {}),
              },
            })
            onIssued()
            return `Issued ${draft.type} (credential ${(data as unknown as { credential: { id: string } }).credential.id})`
          })
        }}
      >
        <label>
          Holder DID{' '}
          <input
            required
            value={subject}
            onInput={(e) => setSubject(e.currentTarget.value)}
            placeholder="did:key:…"
            autoComplete="off"
          />
        </label>
        <CredentialFields state={state} schemas={schemas} templates={templates} />
        <label>
          Expires on (optional) <input type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Issue credential
        </button>
      </form>
      <Outcome action={action} />
    </Section>
  )
}
