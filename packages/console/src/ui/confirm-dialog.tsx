import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import './confirm-dialog.css'

/**
 * A modal confirmation (the HTML <dialog> element, shown with showModal): focus moves into it,
 * Escape cancels, the rest of the page is inert while it is open. The cancel button comes first
 * and has the focus, so Enter alone never confirms a destructive action.
 */
export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  onConfirm,
  onCancel,
  children,
}: {
  open: boolean
  title: string
  confirmLabel: string
  onConfirm: () => void
  onCancel: () => void
  children: ComponentChildren
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const cancel = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    const el = dialog.current
    if (!el) return
    if (open && !el.open) {
      el.showModal()
      cancel.current?.focus()
    }
    if (!open && el.open) el.close()
  }, [open])
  // Every way out closes the <dialog> itself first (buttons, Escape), so the browser gives the
  // focus back to the control that opened it; then the choice is reported from its returnValue.
  const closed = () => (dialog.current?.returnValue === 'confirm' ? onConfirm() : onCancel())
  const titleId = `dialog-${title.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby={titleId} onClose={closed}>
      <h3 id={titleId}>{title}</h3>
      <div class="confirm-body">{children}</div>
      <div class="actions">
        <button type="button" ref={cancel} class="secondary" onClick={() => dialog.current?.close('cancel')}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => dialog.current?.close('confirm')}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
