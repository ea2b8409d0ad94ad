import { elementLabel, readableValue, type Readable } from './mdoc.ts'

/** A value as a person reads it: a date in a <time>, an image as an image, lists and nested fields as lists, never JSON. */
export function ReadableView({ value, alt }: { value: Readable; alt: string }) {
  switch (value.kind) {
    case 'text':
      return <>{value.text}</>
    case 'date':
      return <time dateTime={value.iso}>{value.text}</time>
    case 'image':
      return <img class="element-image" src={value.src} alt={alt} data-testid="element-image" />
    case 'list':
      if (!value.items.length) return <>(none)</>
      return (
        <ul class="element-list">
          {value.items.map((item, i) => (
            // Items have no identity of their own: their place in the read-only list is it.
            <li key={i}>
              <ReadableView value={item} alt={alt} />
            </li>
          ))}
        </ul>
      )
    case 'fields':
      return (
        <dl class="element-fields">
          {value.fields.map((f) => (
            <div key={f.name}>
              <dt title={f.name}>{f.label}</dt>
              <dd>
                <ReadableView value={f.value} alt={f.label} />
              </dd>
            </div>
          ))}
        </dl>
      )
  }
}

/** An element's value; `element` is its identifier (a portrait's bytes are shown as its image). */
export function ElementValue({ value, element, label }: { value: unknown; element?: string; label: string }) {
  return <ReadableView value={readableValue(value, element)} alt={label} />
}

/** An mdoc's data elements, each under its readable name (the identifier on hover). */
export function MdocElements({ elements }: { elements: Record<string, unknown> }) {
  const entries = Object.entries(elements)
  if (!entries.length) return <p>No data elements.</p>
  return (
    <dl class="claims" data-testid="mdoc-elements">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt title={name}>{elementLabel(name)}</dt>
          <dd>
            <ElementValue value={value} element={name} label={elementLabel(name)} />
          </dd>
        </div>
      ))}
    </dl>
  )
}
