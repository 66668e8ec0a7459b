/**
 * Profile files on the settings page: sending picked cards, Markdown files and envelopes to `profiles.importFiles`
 * (always merged) and wording what became of each file, and exporting one profile as a Card PNG, a Card JSON or a
 * Markdown file. ImportExport.tsx hosts both; the reading of files lives in card-files.ts.
 */
import { useState, type ReactNode } from 'react'
import { fileBaseName } from '../card-text.ts'
import { CARD_FILE_LIMIT } from '../cards.ts'
import type { State } from '../model.ts'
import type { ApiClient } from './api.ts'
import { useApi } from './api.ts'
import { batches, cardPngWithPicture, download, readPicked } from './card-files.ts'
import { describeError, formatBytes, noticeText } from './feedback.ts'
import { activeLocale, useT, type T } from './locales.ts'

/** What an import of several files reports: one sentence, and a line per file that needs the user's attention. */
export interface FilesOutcome {
  message: string
  details: string[]
}

interface FileReport {
  name: string
  imported: number
  warnings: string[]
  error?: { message: string }
}

/** Import picked files (not a lone envelope, which keeps its own merge/replace path) and word the outcome. */
export async function importPicked(client: ApiClient, t: T, picked: readonly File[]): Promise<FilesOutcome> {
  const { files, skipped } = await readPicked(picked)
  const details = skipped.map((s) => (s.reason === 'size'
    ? t('io.fileTooLarge', { file: s.name, size: formatBytes(s.size ?? 0), limit: formatBytes(CARD_FILE_LIMIT) })
    : t('io.skippedType', { file: s.name })))
  const messages: string[] = []
  for (const batch of batches(files)) {
    try {
      const reply = await client.command('profiles.importFiles', { files: batch })
      messages.push(noticeText(t, reply.notice))
      for (const f of (reply.files ?? []) as FileReport[]) {
        if (f.error !== undefined) details.push(t('io.fileFailed', { file: f.name, message: f.error.message }))
        for (const w of f.warnings) details.push(t('io.fileWarning', { file: f.name, message: w }))
      }
    } catch (error) {
      // A batch in which no file could be imported is refused whole; its files are named in the message.
      details.push(describeError(t, error))
    }
  }
  if (messages.length === 0) throw new Error(details.join('\n') || t('io.nothingImported'))
  return { message: messages.join(' '), details }
}

/** Export one profile as a Card PNG (picture drawn here when needed), a Card JSON or a Markdown file. */
export function ProfileExport({ state }: { state: Pick<State, 'activeId' | 'profiles'> }): ReactNode {
  const t = useT()
  const client = useApi()
  const [chosen, setChosen] = useState(state.activeId)
  const [error, setError] = useState('')
  const profile = state.profiles.find((p) => p.id === chosen) ?? state.profiles[0]
  if (profile === undefined) return null
  const url = (format: string) => `${client.exportUrl}/${encodeURIComponent(profile.id)}?format=${format}`
  const savePng = async (): Promise<void> => {
    setError('')
    try {
      download(await cardPngWithPicture(client.exportUrl, profile.id, profile.emoji), `${fileBaseName(profile.name, profile.id)}.png`)
    } catch (e) {
      setError(describeError(t, e))
    }
  }
  return (
    <div className="ap-io-one">
      <label className="ap-row">
        <span>{t('io.exportProfile')}</span>
        <select className="ap-select" value={profile.id} onChange={(e) => { setChosen(e.currentTarget.value) }}>
          {state.profiles.map((p) => <option key={p.id} value={p.id}>{`${p.emoji} ${p.name}`}</option>)}
        </select>
      </label>
      <div className="ap-row">
        <button type="button" className="ap-btn" onClick={() => { void savePng() }}>{t('io.exportCardPng')}</button>
        <a className="ap-btn" href={url('card-json')} download>{t('io.exportCardJson')}</a>
        <a className="ap-btn" href={url(activeLocale() === 'en' ? 'markdown&lang=en' : 'markdown')} download>{t('io.exportMarkdown')}</a>
      </div>
      <span className="ap-hint">{t('io.exportOneHint')}</span>
      {error !== '' && <div className="ap-error" role="alert">{error}</div>}
    </div>
  )
}
