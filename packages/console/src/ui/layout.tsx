import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

/** A titled region: a landmark named by its heading. */
export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={`${id}-title`} class="card" id={id}>
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
        <button type="button" onClick={copy}>Copy</button>
      </figcaption>
    </figure>
  )
}
