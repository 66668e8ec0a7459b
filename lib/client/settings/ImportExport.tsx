/**
 * Import and export of the profiles file, and the two maintenance actions that wipe data (restore factory
 * defaults, clear every conversation's settings), each behind a confirmation. Reports what happened in words:
 * how many profiles came in, or exactly which field of the file was refused and why.
 */
import { useId, useRef, useState, type ReactNode } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi } from '../data/api.ts'
import { IMPORT_ACCEPT, isCardJson } from './card-files.ts'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { describeError, noticeText } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import {
  ConflictChoice,
  FilesRefused,
  ProfileExport,
  importChosen,
  importPicked,
  type FilesOutcome,
} from './ProfileFiles.tsx'
import { PasteFacts } from './learn/PasteFacts.tsx'
import { OwnImportProgress } from './OwnImportProgress.tsx'

/** Props of {@link ImportExport}. */
export interface ImportExportProps {
  state: WireState
  /** Called before the profiles are replaced (replace import, factory defaults) so the page can ask about an unsaved
   * draft; false cancels. */
  beforeReplace?: () => Promise<boolean>
}

/** The file's text, through FileReader: Blob.text() is missing in older WebViews (and in jsdom). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => {
      resolve(String(reader.result))
    }
    reader.onerror = () => {
      reject(reader.error ?? new Error(`cannot read ${file.name}`))
    }
    reader.readAsText(file)
  })
}

/** What the last action came to: its sentence, and for a files import one line per file that needs attention. */
type Outcome = { kind: 'ok' | 'error'; message: string; details?: readonly string[] } | null

/** Export link, import with merge/replace, restore defaults, clear conversation settings. */
export function ImportExport({ state, beforeReplace = async () => true }: ImportExportProps): ReactNode {
  const t = useT()
  const client = useApi()
  const ids = useId()
  const file = useRef<HTMLInputElement | null>(null)
  const [mode, setMode] = useState<'merge' | 'replace'>('merge')
  // Off by default: the file may be shared, and facts about the user are theirs to hand out.
  const [withUser, setWithUser] = useState(false)
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome>(null)
  const [waiting, setWaiting] = useState<Pick<FilesOutcome, 'conflicts' | 'pending'> | null>(null)
  const [dialog, ask] = useConfirm()
  // Counts the large own files sent in the background, so the progress bar asks how the new one goes.
  const [ownStarted, setOwnStarted] = useState(0)
  const sessionCount = state.conversations

  const run = async (work: () => Promise<string | FilesOutcome>): Promise<void> => {
    setBusy(true)
    setOutcome(null)
    setWaiting(null)
    try {
      const done = await work()
      setOutcome(
        typeof done === 'string'
          ? { kind: 'ok', message: done }
          : { kind: 'ok', message: done.message, details: done.details },
      )
      if (typeof done !== 'string' && done.conflicts.length > 0)
        setWaiting({ conflicts: done.conflicts, pending: done.pending })
    } catch (error) {
      setOutcome(
        error instanceof FilesRefused
          ? { kind: 'error', message: error.message, details: error.lines }
          : { kind: 'error', message: describeError(t, error) },
      )
    } finally {
      setBusy(false)
    }
  }

  const importFile = async (chosen: File): Promise<void> => {
    let payload: unknown
    let text: string
    try {
      text = await readText(chosen)
    } catch {
      // The browser's words for it are in the browser's language and name no file: the user learns which, and why.
      setOutcome({ kind: 'error', message: t('io.readError', { file: chosen.name }) })
      return
    }
    try {
      payload = JSON.parse(text)
    } catch {
      // The parser's own words ("Unexpected token…") are for developers: the user learns what the file is not.
      setOutcome({ kind: 'error', message: t('io.parseError', { file: chosen.name }) })
      return
    }
    if (
      mode === 'replace' &&
      !(await ask(t('io.confirmReplace', { file: chosen.name, count: state.profiles.length }), { danger: true }))
    )
      return
    if (mode === 'replace' && !(await beforeReplace())) return
    await run(async () => {
      const reply = await client.command('state.import', { payload, mode })
      const notice = noticeText(t, reply.notice)
      const summary = t('io.imported', { file: chosen.name, count: reply.imported })
      return notice === '' || notice === summary ? summary : `${summary} ${notice}`
    })
  }

  // Every merge goes to profiles.importFiles, which skips identical profiles and asks about clashing ids; a lone
  // envelope in replace mode keeps state.import, the one command that replaces everything.
  const importMany = async (chosen: File[]): Promise<void> => {
    const lone = mode === 'replace' && chosen.length === 1 && /\.json$/i.test(chosen[0]!.name) ? chosen[0]! : undefined
    if (lone !== undefined && !isCardJson(await readText(lone).catch(() => ''))) return importFile(lone)
    await run(() =>
      importPicked(
        client,
        t,
        chosen,
        async (large) => {
          if (!(await ask(t('io.confirmLarge', { ...large })))) return false
          setOutcome({ kind: 'ok', message: t('io.importingLarge', { file: large.file }) })
          return true
        },
        () => {
          setOwnStarted((n) => n + 1)
        },
      ),
    )
  }

  const pick = (folder: boolean): void => {
    if (file.current === null) return
    file.current.webkitdirectory = folder
    file.current.click()
  }

  const dangerous = async (
    question: string,
    op: 'sessions.clearAll' | 'state.restoreDefaults',
    replacesProfiles: boolean,
  ): Promise<void> => {
    if (!(await ask(question, { danger: true }))) return
    if (replacesProfiles && !(await beforeReplace())) return
    await run(async () => noticeText(t, (await client.command(op)).notice))
  }

  return (
    <section className="ap-panel ap-io" aria-label={t('io.title')}>
      {dialog}
      <h3>{t('io.title')}</h3>
      <div className="ap-row">
        <a className="ap-btn" href={client.urlOf('export', withUser ? { query: { user: '1' } } : {})} download>
          {t('io.export')}
        </a>
        <span className="ap-hint">{t('io.exportHint')}</span>
      </div>
      <div className="ap-row">
        <label className="ap-check">
          <input
            type="checkbox"
            checked={withUser}
            onChange={(e) => {
              setWithUser(e.currentTarget.checked)
            }}
          />
          <span>{t('io.exportUser', { count: state.userItems })}</span>
        </label>
      </div>
      <ProfileExport state={state} />
      <fieldset className="ap-fieldset">
        <legend>{t('io.mode')}</legend>
        {(['merge', 'replace'] as const).map((m) => (
          <label key={m} className="ap-check">
            <input
              type="radio"
              name={`${ids}mode`}
              value={m}
              checked={mode === m}
              onChange={() => {
                setMode(m)
              }}
            />
            <span>{t(m === 'merge' ? 'io.merge' : 'io.replace')}</span>
          </label>
        ))}
      </fieldset>
      <div className="ap-row">
        <input
          ref={file}
          type="file"
          accept={IMPORT_ACCEPT}
          multiple
          hidden
          aria-label={t('io.import')}
          onChange={(e) => {
            const chosen = [...(e.currentTarget.files ?? [])]
            e.currentTarget.value = ''
            if (chosen.length > 0) void importMany(chosen)
          }}
        />
        <button
          type="button"
          className="ap-btn"
          disabled={busy}
          onClick={() => {
            pick(false)
          }}
        >
          {t('io.import')}
        </button>
        <button
          type="button"
          className="ap-btn"
          disabled={busy}
          onClick={() => {
            pick(true)
          }}
        >
          {t('io.importFolder')}
        </button>
      </div>
      <span className="ap-hint">{t('io.importHint')}</span>
      <OwnImportProgress watch={ownStarted} />
      {waiting !== null && (
        <ConflictChoice
          conflicts={waiting.conflicts}
          busy={busy}
          onApply={(replace) => {
            void run(() => importChosen(client, t, waiting.pending, replace))
          }}
          onSkip={() => {
            setWaiting(null)
          }}
        />
      )}
      {outcome !== null && (
        <div
          className={outcome.kind === 'ok' ? 'ap-notice' : 'ap-error'}
          role={outcome.kind === 'ok' ? 'status' : 'alert'}
        >
          {outcome.message}
          {outcome.details !== undefined && outcome.details.length > 0 && (
            <ul className="ap-io-details">
              {outcome.details.map((d, i) => (
                <li key={i}>{d}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <PasteFacts state={state} />
      <h3>{t('io.maintenance')}</h3>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn ap-btn-danger"
          disabled={busy}
          onClick={() => {
            void dangerous(t('io.confirmRestore', { count: state.profiles.length }), 'state.restoreDefaults', true)
          }}
        >
          {t('io.restore')}
        </button>
        <button
          type="button"
          className="ap-btn ap-btn-danger"
          disabled={busy || sessionCount === 0}
          onClick={() => {
            void dangerous(t('io.confirmClearSessions', { count: sessionCount }), 'sessions.clearAll', false)
          }}
        >
          {t('io.clearSessions')}
        </button>
      </div>
    </section>
  )
}
