/**
 * The page's own yes/no dialog and `useConfirm`, which turns it into `await ask(message)`. Written by hand rather
 * than window.confirm: a native prompt freezes the whole app and cannot follow the host's theme. It never decides
 * anything itself; callers act on the answer.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import { useT } from '../copy/locales.ts'

/** Props of {@link ConfirmDialog}. */
interface ConfirmDialogProps {
  message: string
  /** Label of the confirming button; "OK" when omitted. */
  confirmLabel?: string
  danger?: boolean
  onAnswer(yes: boolean): void
}

/** A modal question with Cancel and a confirming button; Escape cancels. */
function ConfirmDialog({ message, confirmLabel, danger = false, onAnswer }: ConfirmDialogProps): ReactNode {
  const t = useT()
  const cancelRef = useRef<HTMLButtonElement | null>(null)
  useEffect(() => {
    cancelRef.current?.focus()
  }, [])
  const dialog = (
    <div
      className="ap-root ap-dialog-mask"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return
        // Our dialog answers Escape; the host's settings dialog underneath must not close too.
        e.stopPropagation()
        e.nativeEvent.stopImmediatePropagation()
        onAnswer(false)
      }}
    >
      <div className="ap-dialog" role="alertdialog" aria-modal="true" aria-label={message}>
        <div className="ap-dialog-message">{message}</div>
        <div className="ap-dialog-actions">
          <button
            ref={cancelRef}
            type="button"
            className="ap-btn"
            onClick={() => {
              onAnswer(false)
            }}
          >
            {t('action.cancel')}
          </button>
          <button
            type="button"
            className={`ap-btn ${danger ? 'ap-btn-danger' : 'ap-btn-primary'}`}
            onClick={() => {
              onAnswer(true)
            }}
          >
            {confirmLabel ?? t('action.confirm')}
          </button>
        </div>
      </div>
    </div>
  )
  return typeof document === 'undefined' ? dialog : createPortal(dialog, document.body)
}

/** Options of one question. */
export interface AskOptions {
  confirmLabel?: string
  danger?: boolean
}

/** Hook: `[dialogElement, ask]`; render the element somewhere, `await ask(message)` resolves true on confirm. */
export function useConfirm(): [ReactNode, (message: string, options?: AskOptions) => Promise<boolean>] {
  const [pending, setPending] = useState<{ message: string; options: AskOptions; resolve(yes: boolean): void } | null>(
    null,
  )
  const ask = useCallback(
    (message: string, options: AskOptions = {}) =>
      new Promise<boolean>((resolve) => {
        setPending((previous) => {
          // A second question replaces the first; the first counts as cancelled.
          previous?.resolve(false)
          return { message, options, resolve }
        })
      }),
    [],
  )
  const element =
    pending === null ? null : (
      <ConfirmDialog
        message={pending.message}
        {...(pending.options.confirmLabel === undefined ? {} : { confirmLabel: pending.options.confirmLabel })}
        danger={pending.options.danger ?? false}
        onAnswer={(yes) => {
          pending.resolve(yes)
          setPending(null)
        }}
      />
    )
  return [element, ask]
}
