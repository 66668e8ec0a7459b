/**
 * Import and export of the profiles file, and the two maintenance actions that wipe data (restore factory
 * defaults, clear every conversation's settings), each behind a confirmation. Reports what happened in words:
 * how many profiles came in, or exactly which field of the file was refused and why.
 */
import { useId, useRef, useState, type ReactNode } from 'react'
import type { State } from '../model.ts'
import { useApi } from './api.ts'
import { useConfirm } from './ConfirmDialog.tsx'
import { describeError, noticeText } from './feedback.ts'
import { useT } from './locales.ts'

/** Props of {@link ImportExport}. */
export interface ImportExportProps {
  state: State
  /** Called before the profiles are replaced (replace import, factory defaults) so the page can ask about an unsaved
   * draft; false cancels. */
  beforeReplace?: () => Promise<boolean>
}

/** The file's text, through FileReader: Blob.text() is missing in older WebViews (and in jsdom). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => { resolve(String(reader.result)) }
    reader.onerror = () => { reject(reader.error ?? new Error(`cannot read ${file.name}`)) }
    reader.readAsText(file)
  })
}

type Outcome = { kind: 'ok'; message: string } | { kind: 'error'; message: string } | null

/** Export link, import with merge/replace, restore defaults, clear conversation settings. */
export function ImportExport({ state, beforeReplace = async () => true }: ImportExportProps): ReactNode {
  const t = useT()
  const client = useApi()
  const ids = useId()
  const file = useRef<HTMLInputElement | null>(null)
  const [mode, setMode] = useState<'merge' | 'replace'>('merge')
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome>(null)
  const [dialog, ask] = useConfirm()
  const sessionCount = Object.keys(state.sessions).length

  const run = async (work: () => Promise<string>): Promise<void> => {
    setBusy(true)
    setOutcome(null)
    try {
      setOutcome({ kind: 'ok', message: await work() })
    } catch (error) {
      setOutcome({ kind: 'error', message: describeError(t, error) })
    } finally {
      setBusy(false)
    }
  }

  const importFile = async (chosen: File): Promise<void> => {
    let payload: unknown
    let text: string
    try {
      text = await readText(chosen)
    } catch (error) {
      setOutcome({ kind: 'error', message: describeError(t, error) })
      return
    }
    try {
      payload = JSON.parse(text)
    } catch (error) {
      setOutcome({ kind: 'error', message: t('io.parseError', { file: chosen.name, message: error instanceof Error ? error.message : String(error) }) })
      return
    }
    if (mode === 'replace' && !(await ask(t('io.confirmReplace', { file: chosen.name, count: state.profiles.length }), { danger: true }))) return
    if (mode === 'replace' && !(await beforeReplace())) return
    await run(async () => {
      const reply = await client.command('state.import', { payload, mode })
      const count = typeof reply.imported === 'number' ? reply.imported : 0
      const notice = noticeText(t, reply.notice)
      const summary = t('io.imported', { file: chosen.name, count })
      return notice === '' || notice === summary ? summary : `${summary} ${notice}`
    })
  }

  const dangerous = async (question: string, op: string, replacesProfiles: boolean): Promise<void> => {
    if (!(await ask(question, { danger: true }))) return
    if (replacesProfiles && !(await beforeReplace())) return
    await run(async () => noticeText(t, (await client.command(op)).notice))
  }

  return (
    <section className="ap-panel ap-io" aria-label={t('io.title')}>
      {dialog}
      <h3>{t('io.title')}</h3>
      <div className="ap-row">
        <a className="ap-btn" href={client.exportUrl} download>{t('io.export')}</a>
        <span className="ap-hint">{t('io.exportHint')}</span>
      </div>
      <fieldset className="ap-fieldset">
        <legend>{t('io.mode')}</legend>
        {(['merge', 'replace'] as const).map((m) => (
          <label key={m} className="ap-check">
            <input type="radio" name={`${ids}mode`} value={m} checked={mode === m} onChange={() => { setMode(m) }} />
            <span>{t(m === 'merge' ? 'io.merge' : 'io.replace')}</span>
          </label>
        ))}
      </fieldset>
      <div className="ap-row">
        <input
          ref={file}
          type="file"
          accept="application/json,.json"
          hidden
          aria-label={t('io.import')}
          onChange={(e) => {
            const chosen = e.currentTarget.files?.[0]
            e.currentTarget.value = ''
            if (chosen !== undefined) void importFile(chosen)
          }}
        />
        <button type="button" className="ap-btn" disabled={busy} onClick={() => { file.current?.click() }}>{t('io.import')}</button>
      </div>
      {outcome !== null && (
        <div className={outcome.kind === 'ok' ? 'ap-notice' : 'ap-error'} role={outcome.kind === 'ok' ? 'status' : 'alert'}>
          {outcome.message}
        </div>
      )}
      <h3>{t('io.maintenance')}</h3>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn ap-btn-danger"
          disabled={busy}
          onClick={() => { void dangerous(t('io.confirmRestore', { count: state.profiles.length }), 'state.restoreDefaults', true) }}
        >
          {t('io.restore')}
        </button>
        <button
          type="button"
          className="ap-btn ap-btn-danger"
          disabled={busy || sessionCount === 0}
          onClick={() => { void dangerous(t('io.confirmClearSessions', { count: sessionCount }), 'sessions.clearAll', false) }}
        >
          {t('io.clearSessions')}
        </button>
      </div>
    </section>
  )
}
