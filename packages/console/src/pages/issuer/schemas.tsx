import { useState } from 'preact/hooks'
import { DATA_TYPE_LABELS, DATA_TYPES, humanize, type DataType } from '../../lib/forms.ts'
import type { RoleSession } from '../../lib/session.ts'
import { Outcome, useAction } from '../../ui/action.tsx'
import { Section } from '../../ui/layout.tsx'
import type { SchemaView } from './types.ts'

interface Row {
  key: number
  name: string
  data_type: DataType
  required: boolean
}

let nextKey = 0
const row = (name = '', data_type: DataType = 'string', required = false): Row => ({
  key: nextKey++,
  name,
  data_type,
  required,
})

/** Schemas: attributes as rows (name, type, required), no syntax to learn. */
export function Schemas({
  session,
  schemas,
  onCreated,
}: {
  session: RoleSession
  schemas: SchemaView[]
  onCreated: () => void
}) {
  const [name, setName] = useState('')
  const [version, setVersion] = useState('1.0')
  const [rows, setRows] = useState<Row[]>(() => [row('given_name', 'string', true)])
  const action = useAction()
  const update = (key: number, change: Partial<Row>) =>
    setRows(rows.map((r) => (r.key === key ? { ...r, ...change } : r)))
  return (
    <Section id="issuer-schemas" title="Schemas">
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => {
            const attributes = rows
              .filter((r) => r.name.trim())
              .map((r) => ({ name: r.name.trim(), data_type: r.data_type, required: r.required }))
            if (!attributes.length) throw new Error('Add at least one attribute')
            const { data } = await session.client.api.POST('/api/issuer/{did}/schemas', {
              params: { path: { did: session.did } },
              body: { name, version, attributes },
            })
            onCreated()
            setName('')
            setRows([row('given_name', 'string', true)])
            return `Schema ${data!.schema.name} created`
          })
        }}
      >
        <div class="row">
          <label>
            Schema name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Version <input required value={version} onInput={(e) => setVersion(e.currentTarget.value)} size={6} />
          </label>
        </div>
        <fieldset>
          <legend>Attributes</legend>
          <ol class="attribute-rows">
            {rows.map((r, i) => (
              <li key={r.key} class="attribute-row">
                <label>
                  Attribute {i + 1} name{' '}
                  <input
                    required
                    pattern="[A-Za-z_][A-Za-z0-9_]*"
                    title="Letters, digits and _; not starting with a digit"
                    value={r.name}
                    onInput={(e) => update(r.key, { name: e.currentTarget.value })}
                  />
                </label>
                <label>
                  Attribute {i + 1} type
                  <select
                    value={r.data_type}
                    onChange={(e) => update(r.key, { data_type: e.currentTarget.value as DataType })}
                  >
                    {DATA_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {DATA_TYPE_LABELS[t]}
                      </option>
                    ))}
                  </select>
                </label>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={r.required}
                    onChange={(e) => update(r.key, { required: e.currentTarget.checked })}
                  />{' '}
                  Attribute {i + 1} required
                </label>
                <button
                  type="button"
                  class="secondary"
                  disabled={rows.length === 1}
                  onClick={() => setRows(rows.filter((x) => x.key !== r.key))}
                >
                  Remove attribute {i + 1}
                </button>
              </li>
            ))}
          </ol>
          <button type="button" class="secondary" onClick={() => setRows([...rows, row()])}>
            Add an attribute
          </button>
        </fieldset>
        <button type="submit" disabled={action.busy}>
          Create schema
        </button>
      </form>
      <Outcome action={action} />
      <table class="stack">
        <caption>Your schemas</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Version</th>
            <th scope="col">Attributes</th>
          </tr>
        </thead>
        <tbody>
          {schemas.map((s) => (
            <tr key={s.id}>
              <td data-label="Name">{s.name}</td>
              <td data-label="Version">{s.version}</td>
              <td data-label="Attributes">
                {s.attributes
                  .map(
                    (a) =>
                      `${humanize(a.name)} (${DATA_TYPE_LABELS[a.data_type] ?? a.data_type}${a.required ? ', required' : ''})`,
                  )
                  .join(', ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}
