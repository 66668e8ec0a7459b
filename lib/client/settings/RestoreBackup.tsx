/**
 * Maintenance → "Restore a backup": the store's daily backups, newest first; pick a date to see what it holds (its
 * profiles with their memory items, conversations), then restore it, after a confirmation saying the current data
 * becomes a backup first. It renders and asks; the list, the pick and the restore are use-backups.ts's.
 */
import type { ReactNode } from 'react'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { OutcomeLine } from '../common/Outcome.tsx'
import { formatBytes, formatTime } from '../common/feedback.ts'
import { useBackups } from './use-backups.ts'
import { activeLocale, useT } from '../copy/locales.ts'
import type { BackupInfo } from '../../shared/wire-replies.ts'

/** Props of {@link RestoreBackup}. */
export interface RestoreBackupProps {
  /** Called before the data is replaced, so the page can ask about an unsaved draft; false cancels. */
  beforeReplace(): Promise<boolean>
  /** Called once a backup was restored: what the page said about the data before it (an import's result) is stale. */
  onRestored?(): void
}

/** The section. */
export function RestoreBackup({ beforeReplace, onRestored }: RestoreBackupProps): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const [dialog, ask] = useConfirm()
  const { backups, chosen, choose, restore: restoreBackup, busy, outcome } = useBackups()

  const backup = backups?.find((b) => b.name === chosen)
  // With seconds: two restores in one minute leave two before-restore copies, which must not read alike.
  const label = (b: BackupInfo) =>
    b.kind === 'daily' ? b.name : t('backup.beforeRestore', { time: formatTime(locale, b.at, { seconds: true }) })

  const restore = async () => {
    if (backup === undefined) return
    if (!(await ask(t('backup.confirm', { name: label(backup) }), { danger: true }))) return
    if (!(await beforeReplace())) return
    await restoreBackup(backup, t('backup.restored', { name: label(backup) }), onRestored)
  }

  return (
    <section className="ap-panel ap-backups" aria-label={t('backup.title')}>
      {dialog}
      <h3>{t('backup.title')}</h3>
      <p className="ap-hint">{t('backup.hint')}</p>
      {backups === null ? (
        <div className="ap-placeholder" role="status">
          {t('page.loading')}
        </div>
      ) : backups.length === 0 ? (
        <div>{t('backup.none')}</div>
      ) : (
        <>
          <label className="ap-row">
            <span>{t('backup.pick')}</span>
            <select
              className="ap-input"
              value={chosen}
              onChange={(e) => {
                choose(e.target.value)
              }}
              aria-label={t('backup.pick')}
            >
              {backups.map((b) => (
                <option key={b.name} value={b.name}>
                  {label(b)}
                </option>
              ))}
            </select>
          </label>
          {backup !== undefined && (
            <div className="ap-backup-contents" data-ap-backup={backup.name}>
              <div>
                {t('backup.holds', {
                  profiles: backup.profiles.length,
                  items: backup.items,
                  sessions: backup.sessions,
                  size: formatBytes(backup.bytes),
                })}
              </div>
              <ul className="ap-memory-list">
                {backup.profiles.map((p) => (
                  <li key={p.id}>{t('backup.profile', { name: p.name, count: p.items })}</li>
                ))}
              </ul>
              <button
                type="button"
                className="ap-btn ap-btn-danger"
                disabled={busy}
                onClick={() => {
                  void restore()
                }}
              >
                {t('backup.restore')}
              </button>
            </div>
          )}
        </>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
