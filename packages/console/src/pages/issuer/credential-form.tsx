import { useState } from 'preact/hooks'
import { attributeValues, fieldValue, FORMATS, type FieldValue } from '../../lib/forms.ts'
import { AttributeFields } from '../../ui/attribute-fields.tsx'
import type { SchemaView, TemplateView } from './types.ts'

/** What a template or the person chose: template, schema, type, format and the attribute fields. */
export interface Draft {
  templateId: string
  schemaId: string
  type: string
  format: string
  values: Record<string, FieldValue | undefined>
}

const empty: Draft = { templateId: '', schemaId: '', type: '', format: '', values: {} }

/**
 * A credential being issued or offered: choosing a template fills its schema, type, format and
 * fixed attributes (shown read-only); the schema's attributes become typed fields.
 */
export function useDraft(schemas: SchemaView[], templates: TemplateView[]) {
  const [draft, setDraft] = useState<Draft>(empty)
  const template = templates.find((t) => t.id === draft.templateId)
  const schema = schemas.find((s) => s.id === (template?.schema_id ?? draft.schemaId))
  const fixed: Record<string, FieldValue> = {}
  if (template && schema) {
    for (const a of schema.attributes)
      if (Object.hasOwn(template.fixed_attributes, a.name))
        fixed[a.name] = fieldValue(a.data_type, template.fixed_attributes[a.name])
  }
  return {
    draft,
    template,
    schema,
    fixed,
    reset: () => setDraft(empty),
    set: (change: Partial<Draft>) => setDraft({ ...draft, ...change }),
    chooseTemplate: (id: string) => {
      const t = templates.find((x) => x.id === id)
      setDraft(
        t
          ? { templateId: id, schemaId: t.schema_id, type: t.credential_type, format: t.format ?? '', values: {} }
          : { ...draft, templateId: '' },
      )
    },
    /** The attributes to send: the form's, typed, with the template's fixed values (equal values are accepted by the API). */
    attributes: (options: { partial?: boolean } = {}) => {
      if (!schema) throw new Error('Choose a schema or a template')
      const own = attributeValues(schema.attributes, draft.values, { skip: new Set(Object.keys(fixed)), ...options })
      return { ...own, ...(template?.fixed_attributes ?? {}) }
    },
  }
}
export type DraftState = ReturnType<typeof useDraft>

/** Template, schema, type and format controls, then the schema's typed attribute fields. */
export function CredentialFields({
  state,
  schemas,
  templates,
  formats = FORMATS,
  withTemplate = true,
  allOptional = false,
}: {
  state: DraftState
  schemas: SchemaView[]
  templates: TemplateView[]
  formats?: typeof FORMATS
  withTemplate?: boolean
  allOptional?: boolean
}) {
  const { draft, template, schema, fixed, set } = state
  return (
    <>
      {withTemplate && (
        <label>
          Template
          <select value={draft.templateId} onChange={(e) => state.chooseTemplate(e.currentTarget.value)}>
            <option value="">No template</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Schema
        <select
          required
          value={schema?.id ?? ''}
          disabled={Boolean(template)}
          onChange={(e) => set({ schemaId: e.currentTarget.value, values: {} })}
        >
          <option value="">Choose a schema</option>
          {schemas.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} {s.version}
            </option>
          ))}
        </select>
      </label>
      <label>
        Credential type{' '}
        <input
          required
          value={draft.type}
          readOnly={Boolean(template)}
          onInput={(e) => set({ type: e.currentTarget.value })}
          placeholder="e.g. UniversityDegree"
        />
      </label>
      <label>
        Format
        <select
          value={draft.format}
          disabled={Boolean(template?.format)}
          onChange={(e) => set({ format: e.currentTarget.value })}
        >
          <option value="">Default (JWT-VC)</option>
          {formats.map((f) => (
            <option key={f.id} value={f.id}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      <AttributeFields
        attributes={schema?.attributes ?? []}
        values={draft.values}
        fixed={fixed}
        allOptional={allOptional}
        onChange={(name, value) => set({ values: { ...draft.values, [name]: value } })}
      />
    </>
  )
}
