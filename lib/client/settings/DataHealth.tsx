/**
 * The data's health where the user looks: a banner over the settings page when nothing can be saved (a newer version
 * of the plugin made the data, or its directory cannot be written), and a block of Diagnostics listing the rows set
 * aside (table, key, and why, in the user's language), what a salvage of a damaged database saved and lost, and what
 * the background integrity check found (or that it has not ended yet), and the upgrade of the data file running in the
 * background after a start that migrated it. Read-only; it renders nothing
 * for a host that sends no `meta.data`.
 */
import type { ReactNode } from 'react'
import type { DataHealth, IntegrityCheck, SetAsideRow } from '../../shared/meta.ts'
import { fieldLabel, formatTime, ruleText } from '../common/feedback.ts'
import { activeLocale, useT, type T } from '../copy/locales.ts'

/** The sentence saying why nothing is saved, or undefined when the data can be written. */
function readOnlyText(t: T, data: DataHealth | undefined): string | undefined {
  const readOnly = data?.readOnly
  if (readOnly === undefined) return undefined
  if (readOnly.kind === 'unwritable')
    return t('detail.quoted', { text: t(`data.unwritable.${readOnly.cause}`), detail: readOnly.message })
  return readOnly.unreadable === true ? t('data.newerUnreadable') : t('data.newer')
}

/**
 * Why a row is set aside, in the page's language: a refusal of one of its fields worded as a refusal is (the field's
 * label and the rule or limit it broke), else the reason's own sentence. The host's English `reason` is for its log.
 */
function setAsideText(t: T, row: SetAsideRow): string {
  const why = row.why
  if (why.key !== 'refused') return t(`data.why.${why.key}`, why.params)
  const refusal = why.refusal
  const field = refusal?.field === undefined ? t('field.unknown') : fieldLabel(t, refusal.field)
  const rule = refusal === undefined ? undefined : ruleText(t, refusal)
  return rule === undefined ? t('data.why.refused', { field }) : t('error.field', { field, message: rule })
}

/** What the background integrity check found, or that it has not ended yet, in the page's language. */
function checkText(t: T, check: IntegrityCheck): string {
  if (check.state === 'pending') return t('data.check.pending')
  return t(`data.check.${check.state}`, { time: formatTime(activeLocale(), check.at) })
}

/** The banner over the settings page while the data is read-only. */
export function DataBanner({ data }: { data: DataHealth | undefined }): ReactNode {
  const t = useT()
  const text = readOnlyText(t, data)
  if (text === undefined) return null
  return (
    <div className="ap-notice ap-conflict ap-read-only" role="status" data-ap-read-only={data!.readOnly!.kind}>
      {text}
    </div>
  )
}

/** The Diagnostics rows of the data's health (a fragment of the panel's definition list). */
export function DataHealthRows({ data }: { data: DataHealth | undefined }): ReactNode {
  const t = useT()
  if (data === undefined) return null
  const text = readOnlyText(t, data)
  return (
    <>
      {text !== undefined && (
        <>
          <dt>{t('data.readOnly')}</dt>
          <dd>
            <span className="ap-error-message">{text}</span>
          </dd>
        </>
      )}
      <dt>{t('data.setAside')}</dt>
      <dd className="ap-set-aside">
        {data.setAside.length === 0 ? (
          t('data.setAsideNone')
        ) : (
          <>
            <div className="ap-hint">{t('data.setAsideHint')}</div>
            <ul className="ap-memory-list">
              {data.setAside.map((row) => (
                <li key={`${row.table}/${row.key}`}>
                  <code>{row.table}</code> · <code>{row.key}</code> · {setAsideText(t, row)}
                  {row.mended === true && <> {t('data.mended')}</>}
                </li>
              ))}
            </ul>
          </>
        )}
      </dd>
      {data.salvage !== undefined && (
        <>
          <dt>{t('data.salvage')}</dt>
          <dd>
            {t(data.salvage.lostUncounted === true ? 'data.salvageUncounted' : 'data.salvageValue', {
              saved: data.salvage.saved,
              lost: data.salvage.lost,
              path: data.salvage.keptAs,
            })}
          </dd>
        </>
      )}
      {data.upgrade !== undefined && (
        <>
          <dt>{t('data.upgradeTitle')}</dt>
          <dd className="ap-data-upgrade" data-ap-upgrade={data.upgrade}>
            {t(`data.upgrade.${data.upgrade}`)}
          </dd>
        </>
      )}
      {data.check !== undefined && (
        <>
          <dt>{t('data.checkTitle')}</dt>
          <dd className="ap-integrity-check" data-ap-check={data.check.state}>
            {data.check.state === 'damaged' ? (
              <span className="ap-error-message">{checkText(t, data.check)}</span>
            ) : (
              checkText(t, data.check)
            )}
          </dd>
        </>
      )}
    </>
  )
}
