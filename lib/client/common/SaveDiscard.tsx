/**
 * The save and discard buttons of an editing surface whose draft outlives it (About you, the conversation's ⚙
 * panel): save while there is a change and nothing blocks it, discard only while there is something to discard.
 * It never saves or discards itself; the surface does, and says how it went.
 */
import type { ReactNode } from 'react'
import { useT } from '../copy/locales.ts'

/** Props of {@link SaveDiscard}. */
export interface SaveDiscardProps {
  dirty: boolean
  busy: boolean
  /** True while the draft cannot be saved as it is (a field over its limit). */
  blocked?: boolean
  onSave(): Promise<void>
  onDiscard(): void
}

/** Save (saying so while it saves) and, with a change, discard. */
export function SaveDiscard({ dirty, busy, blocked = false, onSave, onDiscard }: SaveDiscardProps): ReactNode {
  const t = useT()
  return (
    <>
      <button
        type="button"
        className="ap-btn ap-btn-primary"
        disabled={!dirty || busy || blocked}
        onClick={() => {
          void onSave()
        }}
      >
        {busy ? t('action.saving') : t('action.save')}
      </button>
      {dirty && (
        <button type="button" className="ap-btn" disabled={busy} onClick={onDiscard}>
          {t('action.discard')}
        </button>
      )}
    </>
  )
}
