import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { humanize, shortDid } from '../lib/forms.ts'

/** A titled region: a landmark named by its heading. */
export function Section({
  id,
  title,
  children,
  wide,
}: {
  id: string
  title: string
  children: ComponentChildren
  wide?: boolean
}) {
  return (
    <section aria-labelledby={`${id}-title`} class={wide ? 'card wide' : 'card'} id={id}>
      <h3 id={`${id}-title`}>{title}</h3>
      {children}
    </section>
  )
}

/** Calls `tick` now and every `ms` while mounted (and the tab is visible), after each call ends. */
export function usePoll(tick: () => Promise<void>, ms: number, deps: unknown[]) {
  const latest = useRef(tick)
  latest.current = tick
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const loop = async () => {
      try {
        if (document.visibilityState !== 'hidden') await latest.current()
      } catch {
        // The next tick tries again; the page's own buttons report errors.
      }
      if (!stopped) timer = setTimeout(loop, ms)
    }
    void loop()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, deps)
}

export function Claims({ claims, empty = 'No claims.' }: { claims: Record<string, unknown>; empty?: string }) {
  const entries = Object.entries(claims)
  if (!entries.length) return <p>{empty}</p>
  return (
    <dl class="claims">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
        </div>
      ))}
    </dl>
  )
}

/** A QR image (the API's data URL) with its text beside it, for copying. */
export function QrCode({ image, text, label, testId }: { image: string; text: string; label: string; testId: string }) {
  const copy = () => void navigator.clipboard?.writeText(text)
  return (
    <figure class="qr">
      <img src={image} alt={`QR code: ${label}`} data-testid={testId} width={240} height={240} />
      <figcaption>
        <label>
          {label} (text)
          <textarea readOnly rows={3} value={text} />
        </label>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </figcaption>
    </figure>
  )
}

/**
 * Tabs (WAI-ARIA Authoring Practices "Tabs"): the arrow keys move between tabs, only the chosen
 * tab is in the Tab order, and its panel follows.
 */
export function Tabs({
  label,
  tabs,
}: {
  label: string
  tabs: Array<{ id: string; title: string; content: ComponentChildren }>
}) {
  const [chosen, setChosen] = useState(tabs[0]?.id)
  const base = useId()
  const refs = useRef<Array<HTMLButtonElement | null>>([])
  const current = tabs.find((t) => t.id === chosen) ?? tabs[0]
  const move = (index: number) => {
    const next = tabs[(index + tabs.length) % tabs.length]!
    setChosen(next.id)
    refs.current[(index + tabs.length) % tabs.length]?.focus()
  }
  if (!current) return null
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label}>
        {tabs.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-${t.id}-tab`}
            aria-selected={t.id === current.id}
            aria-controls={`${base}-${t.id}-panel`}
            tabIndex={t.id === current.id ? 0 : -1}
            ref={(el) => {
              refs.current[i] = el
            }}
            onClick={() => setChosen(t.id)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') {
                e.preventDefault()
                move(i + 1)
              }
              if (e.key === 'ArrowLeft') {
                e.preventDefault()
                move(i - 1)
              }
            }}
          >
            {t.title}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-${current.id}-panel`} aria-labelledby={`${base}-${current.id}-tab`}>
        {current.content}
      </div>
    </div>
  )
}

/** A QR image (an SVG or PNG data URL from the API) with the text it holds, for copying or opening in a wallet on this device. */
export function QrPanel({
  image,
  text,
  label,
  testId,
  link,
}: {
  image: string
  text: string
  label: string
  testId: string
  link?: boolean
}) {
  const [copied, setCopied] = useState(false)
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    )
  }
  return (
    <figure class="qr">
      <img src={image} alt={`QR code: ${label}`} data-testid={testId} width={240} height={240} />
      <figcaption>
        <label>
          {label}
          <textarea readOnly rows={3} value={text} data-testid={`${testId}-text`} />
        </label>
        <div class="actions">
          <button type="button" onClick={copy}>
            Copy
          </button>
          {link && (
            <a class="button-link" href={text}>
              Open in a wallet on this device
            </a>
          )}
          {copied && <span role="status">Copied</span>}
        </div>
      </figcaption>
    </figure>
  )
}

/** JSON for reading (the spec's objects behind a QR code). */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <div class="json">
      <p class="json-label">{label}</p>
      <pre tabIndex={0} role="region" aria-label={label}>
        {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
      </pre>
    </div>
  )
}

/** Initials in a circle: the mark of an issuer or verifier without a logo this page may load (its CSP allows no outside images). */
export function Monogram({ name }: { name: string }) {
  const initials =
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]!.toUpperCase())
      .join('') || '?'
  return (
    <span class="monogram" aria-hidden="true">
      {initials}
    </span>
  )
}

/** A party by name when it has one, its DID on hover (title) and for screen readers; otherwise the DID, shortened. */
export function Party({ did, name }: { did: string; name?: string | null | undefined }) {
  if (name) {
    return (
      <span class="party" title={did}>
        <Monogram name={name} />
        <span>{name}</span>
        <span class="visually-hidden"> ({did})</span>
      </span>
    )
  }
  return (
    <span class="did" title={did}>
      <code aria-hidden="true">{shortDid(did)}</code>
      <span class="visually-hidden">{did}</span>
    </span>
  )
}

/** Figures with their labels (statistics): each number under a readable name, never a raw key. */
export function Figures({ items, label }: { items: Array<{ label: string; value: number | string }>; label: string }) {
  return (
    <dl class="figures" aria-label={label}>
      {items.map((item) => (
        <div key={item.label}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  )
}

/** Claims with readable labels (`given_name` → Given name); the raw name is in the title. */
export function ReadableClaims({ claims, empty = 'No claims.' }: { claims: Record<string, unknown>; empty?: string }) {
  const entries = Object.entries(claims).filter(([name]) => name !== 'id')
  if (!entries.length) return <p>{empty}</p>
  return (
    <dl class="claims">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt title={name}>{humanize(name)}</dt>
          <dd>
            {typeof value === 'boolean'
              ? value
                ? 'Yes'
                : 'No'
              : typeof value === 'object'
                ? JSON.stringify(value)
                : String(value)}
          </dd>
        </div>
      ))}
    </dl>
  )
}

/**
 * Asks before something that cannot be undone (revoke, delete): a modal <dialog> (HTML
 * "the dialog element": focus moves into it and Escape cancels) naming what will happen.
 */
export function ConfirmButton({
  label,
  title,
  body,
  confirm,
  disabled,
  danger = true,
  onConfirm,
  reason,
}: {
  label: string
  title: string
  body: ComponentChildren
  confirm: string
  disabled?: boolean
  danger?: boolean
  /** Offers a reason field (e.g. a revocation reason) passed to onConfirm. */
  reason?: string
  onConfirm: (reason: string) => void
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [text, setText] = useState('')
  const id = useId()
  return (
    <>
      <button
        type="button"
        class={danger ? 'danger' : undefined}
        disabled={disabled}
        onClick={() => {
          setText('')
          dialog.current?.showModal()
        }}
      >
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`}>
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault()
            dialog.current?.close()
            onConfirm(text)
          }}
        >
          <h4 id={`${id}-title`}>{title}</h4>
          <div id={`${id}-body`}>{body}</div>
          {reason && (
            <label>
              {reason} <input value={text} onInput={(e) => setText(e.currentTarget.value)} />
            </label>
          )}
          <div class="actions">
            <button type="submit" class={danger ? 'danger' : undefined}>
              {confirm}
            </button>
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  )
}

/** A date and time as this browser's locale writes it, in a <time> element. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>
}
