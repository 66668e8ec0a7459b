/**
 * "Learn from your past conversations here", beside the export chooser: the button that has the host read what the
 * user typed in their own earlier dsh conversations in place of an export, and, once read, the workspace to learn
 * from (all, or one folder), and how many of them could not be read. What was found, the days, the estimate and the run are the export's own
 * (LearnFromExport.tsx, LearnRun.tsx); its state is use-learn-export.ts's. It renders only.
 */
import { useId, type ReactNode } from 'react'
import { useT } from '../../copy/locales.ts'
import type { LearnExportState } from './use-learn-export.ts'

/** The button, and the workspace choice once the past conversations were read. */
export function LearnFromPast({ s }: { s: LearnExportState }): ReactNode {
  const t = useT()
  const id = useId()
  return (
    <div className="ap-row ap-learn-past">
      <button type="button" className="ap-btn" disabled={s.busy} onClick={() => void s.readPast(s.cwd)}>
        {t('learn.past.read')}
      </button>
      {s.workspaces !== null && s.workspaces.length > 0 && (
        <>
          <label htmlFor={id}>{t('learn.past.workspace')}</label>
          <select
            id={id}
            className="ap-select"
            value={s.cwd}
            disabled={s.busy}
            onChange={(e) => void s.readPast(e.currentTarget.value)}
          >
            <option value="">{t('learn.past.allWorkspaces')}</option>
            {s.workspaces.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </>
      )}
      <span className="ap-hint">{t('learn.past.hint')}</span>
      {s.unread > 0 && (
        <span className="ap-hint" data-ap-learn-unread="">
          {t('learn.past.unread', { count: s.unread })}
        </span>
      )}
    </div>
  )
}
