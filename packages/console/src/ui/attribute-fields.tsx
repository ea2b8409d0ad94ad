import { useId } from 'preact/hooks'
import { DATA_TYPE_LABELS, humanize, inputKind, type FieldValue, type SchemaAttribute } from '../lib/forms.ts'

/**
 * The inputs of a schema's attributes, one typed control each (text, number, checkbox, date,
 * email, url; JSON only for object and array attributes), required ones marked and `required`.
 * `fixed`: values a template sets, shown read-only.
 */
export function AttributeFields({
  attributes,
  values,
  onChange,
  fixed = {},
  legend = 'Attributes',
  allOptional = false,
}: {
  attributes: SchemaAttribute[]
  values: Record<string, FieldValue | undefined>
  onChange: (name: string, value: FieldValue) => void
  fixed?: Record<string, FieldValue>
  legend?: string
  /** Templates: every value is optional (the rest is filled at issuance). */
  allOptional?: boolean
}) {
  const base = useId()
  if (!attributes.length) return <p class="hint">Choose a schema: its attributes appear here as a form.</p>
  return (
    <fieldset class="attributes">
      <legend>{legend}</legend>
      {!allOptional && attributes.some((a) => a.required) && (
        <p class="hint">
          <span class="required-mark" aria-hidden="true">
            *
          </span>{' '}
          required
        </p>
      )}
      {attributes.map((a) => {
        const id = `${base}-${a.name}`
        const kind = inputKind(a.data_type)
        const isFixed = Object.hasOwn(fixed, a.name)
        const value = isFixed ? fixed[a.name] : values[a.name]
        const required = Boolean(a.required) && !allOptional && !isFixed
        const label = (
          <>
            {humanize(a.name)}
            {required && (
              <span class="required-mark" aria-hidden="true">
                {' '}
                *
              </span>
            )}
            <span class="type-hint">
              {' '}
              ({DATA_TYPE_LABELS[a.data_type] ?? a.data_type}
              {isFixed ? ', set by the template' : ''})
            </span>
          </>
        )
        if (kind.type === 'checkbox') {
          return (
            <div class="field check" key={a.name}>
              <input
                id={id}
                type="checkbox"
                name={a.name}
                data-type={a.data_type}
                checked={value === true}
                disabled={isFixed}
                onChange={(e) => onChange(a.name, e.currentTarget.checked)}
              />
              <label for={id}>{label}</label>
            </div>
          )
        }
        const common = {
          id,
          name: a.name,
          'data-type': a.data_type,
          required,
          'aria-required': required ? ('true' as const) : undefined,
          readOnly: isFixed,
          value: typeof value === 'string' ? value : '',
          onInput: (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
            onChange(a.name, e.currentTarget.value),
        }
        return (
          <div class="field" key={a.name}>
            <label for={id}>{label}</label>
            {kind.type === 'json' ? (
              <textarea rows={2} {...common} />
            ) : (
              <input type={kind.type as 'text'} step={kind.step} autoComplete="off" {...common} />
            )}
            {a.description && <small>{a.description}</small>}
          </div>
        )
      })}
    </fieldset>
  )
}
