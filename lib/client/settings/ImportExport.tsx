/**
 * Import and export of the profiles file, and the two maintenance actions that wipe data (restore factory
 * defaults, clear every conversation's settings), each behind a confirmation. Reports what happened in words:
 * how many profiles came in, or exactly which field of the file was refused and why. The state and the actions live
 * in use-import-export.ts; this file only lays them out.
 */
import { useId, type ReactNode } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi } from '../data/api.ts'
import { IMPORT_ACCEPT } from './card-files.ts'
import { OutcomeLine } from '../common/Outcome.tsx'
import { useT } from '../copy/locales.ts'
import { ConflictChoice, ProfileExport } from './ProfileFiles.tsx'
import { PasteFacts } from './learn/PasteFacts.tsx'
import { OwnImportProgress } from './OwnImportProgress.tsx'
import { useImportExport, type ImportExportState, type ImportMode } from './use-import-export.ts'

/** Props of {@link ImportExport}. */
export interface ImportExportProps {
  state: WireState
  /** Called before the profiles are replaced (replace import, factory defaults) so the page can ask about an unsaved
   * draft; false cancels. */
  beforeReplace?: () => Promise<boolean>
}

/** Props of the section's parts: the wire state and the section's own state. */
interface PartProps {
  state: WireState
  io: ImportExportState
}

/** The export link and whether it carries the facts about the user. */
function ExportRows({ state, io }: PartProps): ReactNode {
  const t = useT()
  const client = useApi()
  return (
    <>
      <div className="ap-row">
        <a className="ap-btn" href={client.urlOf('export', io.withUser ? { query: { user: '1' } } : {})} download>
          {t('io.export')}
        </a>
        <span className="ap-hint">{t('io.exportHint')}</span>
      </div>
      <div className="ap-row">
        <label className="ap-check">
          <input
            type="checkbox"
            checked={io.withUser}
            onChange={(e) => {
              io.setWithUser(e.currentTarget.checked)
            }}
          />
          <span>{t('io.exportUser', { count: state.userItems })}</span>
        </label>
      </div>
    </>
  )
}

/** Merge into the profiles here, or replace them. */
function ModeChoice({ io }: Pick<PartProps, 'io'>): ReactNode {
  const t = useT()
  const ids = useId()
  return (
    <fieldset className="ap-fieldset">
      <legend>{t('io.mode')}</legend>
      {(['merge', 'replace'] as const satisfies readonly ImportMode[]).map((m) => (
        <label key={m} className="ap-check">
          <input
            type="radio"
            name={`${ids}mode`}
            value={m}
            checked={io.mode === m}
            onChange={() => {
              io.setMode(m)
            }}
          />
          <span>{t(m === 'merge' ? 'io.merge' : 'io.replace')}</span>
        </label>
      ))}
    </fieldset>
  )
}

/** The hidden file input and the two buttons that open it, for files or a folder. */
function ImportButtons({ io }: Pick<PartProps, 'io'>): ReactNode {
  const t = useT()
  const busy = io.action.busy
  return (
    <div className="ap-row">
      <input
        ref={io.file}
        type="file"
        accept={IMPORT_ACCEPT}
        multiple
        hidden
        aria-label={t('io.import')}
        onChange={(e) => {
          const chosen = [...(e.currentTarget.files ?? [])]
          e.currentTarget.value = ''
          if (chosen.length > 0) void io.importMany(chosen)
        }}
      />
      <button
        type="button"
        className="ap-btn"
        disabled={busy}
        onClick={() => {
          io.pick(false)
        }}
      >
        {t('io.import')}
      </button>
      <button
        type="button"
        className="ap-btn"
        disabled={busy}
        onClick={() => {
          io.pick(true)
        }}
      >
        {t('io.importFolder')}
      </button>
    </div>
  )
}

/** Restore factory defaults, clear every conversation's settings. */
function MaintenanceRow({ state, io }: PartProps): ReactNode {
  const t = useT()
  const busy = io.action.busy
  const sessionCount = state.conversations
  return (
    <div className="ap-row">
      <button
        type="button"
        className="ap-btn ap-btn-danger"
        disabled={busy}
        onClick={() => {
          void io.wipe(t('io.confirmRestore', { count: state.profiles.length }), 'state.restoreDefaults')
        }}
      >
        {t('io.restore')}
      </button>
      <button
        type="button"
        className="ap-btn ap-btn-danger"
        disabled={busy || sessionCount === 0}
        onClick={() => {
          void io.wipe(t('io.confirmClearSessions', { count: sessionCount }), 'sessions.clearAll')
        }}
      >
        {t('io.clearSessions')}
      </button>
    </div>
  )
}

/** Export link, import with merge/replace, restore defaults, clear conversation settings. */
export function ImportExport({ state, beforeReplace = async () => true }: ImportExportProps): ReactNode {
  const t = useT()
  const io = useImportExport(state, beforeReplace)
  return (
    <section className="ap-panel ap-io" aria-label={t('io.title')}>
      {io.dialog}
      <h3>{t('io.title')}</h3>
      <ExportRows state={state} io={io} />
      <ProfileExport state={state} />
      <ModeChoice io={io} />
      <ImportButtons io={io} />
      <span className="ap-hint">{t('io.importHint')}</span>
      <OwnImportProgress watch={io.ownStarted} />
      {io.waiting !== null && (
        <ConflictChoice
          conflicts={io.waiting.conflicts}
          busy={io.action.busy}
          onApply={io.applyChoice}
          onSkip={io.skipChoice}
        />
      )}
      <OutcomeLine outcome={io.action.outcome}>
        {io.details.length > 0 && (
          <ul className="ap-io-details">
            {io.details.map((d, i) => (
              <li key={i}>{d}</li>
            ))}
          </ul>
        )}
      </OutcomeLine>
      <PasteFacts state={state} />
      <h3>{t('io.maintenance')}</h3>
      <MaintenanceRow state={state} io={io} />
    </section>
  )
}
