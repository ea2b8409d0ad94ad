import { useCallback, useState } from 'preact/hooks'
import { describeError } from '../lib/errors.ts'

export interface Action {
  busy: boolean
  error: string | undefined
  message: string | undefined
  run(work: () => Promise<string | void>): Promise<void>
}

/** One button's work: busy while it runs, then its outcome in a live region (see <Outcome>). */
export function useAction(): Action {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [message, setMessage] = useState<string>()
  const run = useCallback(async (work: () => Promise<string | void>) => {
    setBusy(true)
    setError(undefined)
    setMessage(undefined)
    try {
      const done = await work()
      if (done) setMessage(done)
    } catch (e) {
      setError(describeError(e))
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, message, run }
}

/** Announced to screen readers: errors as alerts, the rest politely. */
export function Outcome({ action }: { action: Action }) {
  return (
    <div class="outcome">
      {action.busy && <p role="status">Working…</p>}
      {action.message && (
        <p role="status" class="ok">
          {action.message}
        </p>
      )}
      {action.error && (
        <p role="alert" class="error">
          {action.error}
        </p>
      )}
    </div>
  )
}
