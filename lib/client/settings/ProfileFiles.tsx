/**
 * Profile files on the settings page: sending picked cards, Markdown files and envelopes to `profiles.importFiles`
 * (always merged) and wording what became of each file, the choice between "keep both" and "replace this one" (for a
 * profile of the same name: "update it") for a profile whose id or name is taken by one with other content, and exporting one profile as a Card PNG, a Card JSON, a CHARX
 * or a Markdown file. ImportExport.tsx hosts both; the reading of files lives in card-files.ts.
 */
import { useId, useState, type ReactNode } from 'react'
import { fileBaseName } from '../../shared/card-text.ts'
import { useApi, type ApiClient } from '../data/api.ts'
import { ApiError } from '../data/call.ts'
import { batches, cardPngWithPicture, download, readPicked } from './card-files.ts'
import { WordedError, describeError, formatBytes, noticeText } from '../common/feedback.ts'
import { activeLocale, useT, type T } from '../copy/locales.ts'
import { CARD_FILE_LIMIT } from '../../shared/files.ts'
import type { FileResult, ImportClash } from '../../shared/import-report.ts'
import type { ImportFile } from '../../shared/command-inputs.ts'
import type { WireState } from '../../shared/wire-state.ts'
import type { ArgsOf, ReplyOf } from '../../shared/commands.ts'
import { awaitOwnImport } from './OwnImportProgress.tsx'
import { clashText } from './clash-text.ts'
import { fileLines } from './import-report.ts'

/** A picked profile whose id is taken by one with other content, waiting for "keep both" or "replace this one". */
export interface Conflict extends ImportClash {
  file: string
}

/** What an import of several files reports: one sentence, a line per file that needs the user's attention, and the
 * profiles waiting for a choice with the files that carry them (sent again once the user has chosen). */
export interface FilesOutcome {
  message: string
  details: string[]
  conflicts: Conflict[]
  pending: ImportFile[]
}

/** How profiles whose id is taken by one with other content are treated (the fields of the command besides its files). */
type FilesChoice = Omit<ArgsOf<'profiles.importFiles'>, 'files'>

/** What a file past the bounds of a shared file holds, as the host counted it. */
interface LargeFile {
  file: string
  profiles: number
  items: number
}

/**
 * Asks the user whether a large file is an export of their own (true: it is sent again as theirs, and may bring up to
 * the larger bounds of one's own file); absent, a large file is reported as not imported.
 */
export type AskLarge = (large: LargeFile) => Promise<boolean>

/** An import in which no file came in: "nothing was imported", and one line per file saying why (each said once). */
export class FilesRefused extends WordedError {
  override name = 'FilesRefused'
  constructor(
    message: string,
    /** One line per file (or skipped file) that needs the user's attention. */
    readonly lines: readonly string[],
  ) {
    super(message)
  }
}

/** Send file arguments in bounded batches with `choice`, and word what became of each file. */
async function sendFiles(
  client: ApiClient,
  t: T,
  files: readonly ImportFile[],
  choice: FilesChoice,
  details: string[],
  firstPass: boolean,
  askLarge?: AskLarge,
  onOwnStarted?: () => void,
): Promise<FilesOutcome> {
  const messages: string[] = []
  const out: FilesOutcome = { message: '', details, conflicts: [], pending: [] }
  const large: { file: ImportFile; report: FileResult }[] = []
  // What became of the files of one answer (a batch's, or a background import's report).
  const take = (
    reply: Pick<ReplyOf<'profiles.importFiles'>, 'files' | 'userAdded' | 'notice'>,
    batch: ImportFile[],
  ) => {
    const reports = reply.files
    if (reply.userAdded > 0) details.push(t('io.userAdded', { count: reply.userAdded }))
    // A second pass sends files again whole: its notice would count what the first pass brought in as unchanged.
    // A batch of which no file could be imported says so by its files' lines alone.
    const some = reports.some((f) => f.error === undefined)
    if (firstPass && some) messages.push(noticeText(t, reply.notice))
    else
      messages.push(
        ...reports.filter((f) => f.imported > 0).map((f) => t('io.imported', { file: f.name, count: f.imported })),
      )
    reports.forEach((f, i) => {
      if (askLarge !== undefined && f.error?.key === 'largeFile') return void large.push({ file: batch[i]!, report: f })
      if (firstPass)
        for (const u of f.unchanged ?? []) details.push(t('io.fileUnchanged', { file: f.name, name: u.name }))
      details.push(...fileLines(t, f))
      for (const c of f.conflicts ?? []) out.conflicts.push({ ...c, file: f.name })
      if ((f.conflicts ?? []).length > 0) out.pending.push(batch[i]!)
    })
  }
  // A file of the user's own is written in the background, batch by batch (the page and conversations go on, the
  // bar shows how far it is); its report comes when it is done.
  const background = async (own: ImportFile): Promise<void> => {
    try {
      const end = await awaitOwnImport(
        client,
        await client.importOwn({ files: [own], ...choice }).finally(onOwnStarted),
      ).finally(onOwnStarted)
      if (end.result !== undefined) take(end.result, [own])
      if (end.state === 'failed') details.push(t('io.importStopped', { file: own.name }))
    } catch (error) {
      details.push(t('import.fileFailed', { file: own.name, reason: describeError(t, error) }))
    }
  }
  // Sent again after a choice about its clashes, a file of one's own goes to the background as the first time.
  for (const own of files.filter((f) => f.own === true)) await background(own)
  for (const batch of batches(files.filter((f) => f.own !== true))) {
    try {
      take(await client.command('profiles.importFiles', { files: batch, ...choice }), batch)
    } catch (error) {
      // A batch in which no file could be imported is refused whole; the refusal's field names its first file.
      const at = error instanceof ApiError ? /^files\[(\d+)\]/.exec(error.field ?? '')?.[1] : undefined
      const file = batch[Number(at ?? 0)]?.name
      details.push(
        file === undefined
          ? describeError(t, error)
          : t('import.fileFailed', { file, reason: describeError(t, error) }),
      )
    }
  }
  // Each large file is asked about once every other file is in; one the user owns is sent again, alone, as theirs.
  for (const { file, report } of large) {
    const counts = {
      profiles: Number(report.error?.params?.profiles ?? 0),
      items: Number(report.error?.params?.items ?? 0),
    }
    if (!(await askLarge!({ file: file.name, ...counts }))) {
      details.push(...fileLines(t, report))
      continue
    }
    await background({ ...file, own: true })
  }
  if (messages.length === 0 && (firstPass || details.length > 0))
    throw new FilesRefused(t('io.nothingImported'), details)
  out.message = messages.length === 0 ? t('io.nothingImported') : messages.join(' ')
  return out
}

/**
 * Import picked files (not a lone envelope being restored in replace mode, which keeps its own path) and word the
 * outcome. Profiles whose id is taken by one with other content are left out and returned for the user to choose.
 */
export async function importPicked(
  client: ApiClient,
  t: T,
  picked: readonly File[],
  askLarge?: AskLarge,
  /** Called when a large file of the user's own starts importing in the background, and when it is done. */
  onOwnStarted?: () => void,
): Promise<FilesOutcome> {
  const { files, skipped } = await readPicked(picked)
  const details = skipped.map((s) =>
    s.reason === 'size'
      ? t('io.fileTooLarge', { file: s.name, size: formatBytes(s.size ?? 0), limit: formatBytes(CARD_FILE_LIMIT) })
      : t('io.skippedType', { file: s.name }),
  )
  return sendFiles(client, t, files, { conflicts: 'ask' }, details, true, askLarge, onOwnStarted)
}

/** Import the files that waited for a choice: the profiles of `replace` replace theirs, the others are kept beside. */
export function importChosen(
  client: ApiClient,
  t: T,
  pending: readonly ImportFile[],
  replace: readonly string[],
): Promise<FilesOutcome> {
  return sendFiles(client, t, pending, { conflicts: 'keep-both', replace: [...new Set(replace)] }, [], false)
}

/** The choice between "keep both" and "replace this one" for each waiting profile, and the button that applies it. */
export function ConflictChoice({
  conflicts,
  busy,
  onApply,
  onSkip,
}: {
  conflicts: readonly Conflict[]
  busy: boolean
  onApply: (replace: string[]) => void
  onSkip: () => void
}): ReactNode {
  const t = useT()
  const ids = useId()
  const [replace, setReplace] = useState<ReadonlySet<number>>(new Set())
  const set = (i: number, on: boolean) => {
    setReplace((r) => {
      const n = new Set(r)
      if (on) n.add(i)
      else n.delete(i)
      return n
    })
  }
  return (
    <div className="ap-io-conflicts" role="group" aria-label={t('io.conflictTitle')}>
      <p>{t('io.conflictTitle')}</p>
      <ul>
        {conflicts.map((c, i) => (
          <li key={i}>
            <span>{t('io.conflictItem', { name: c.name, file: c.file, existing: c.existing })}</span>
            <ClashLine text={clashText(t, c.differs)} />
            {([false, true] as const).map((on) => (
              <label key={String(on)} className="ap-check">
                <input
                  type="radio"
                  name={`${ids}c${i}`}
                  checked={replace.has(i) === on}
                  onChange={() => {
                    set(i, on)
                  }}
                />
                <span>{choiceText(t, c, on)}</span>
              </label>
            ))}
          </li>
        ))}
      </ul>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn"
          disabled={busy}
          onClick={() => {
            onApply(conflicts.filter((_, i) => replace.has(i)).map((c) => c.id))
          }}
        >
          {t('io.applyChoices')}
        </button>
        <button type="button" className="ap-btn" disabled={busy} onClick={onSkip}>
          {t('io.skipConflicts')}
        </button>
      </div>
    </div>
  )
}

/**
 * The words of one option of a clash: replacing (for a clash by name, updating the profile of that name with the
 * file's version) or keeping both (saying the name the file's profile comes in under when it must be another).
 */
function choiceText(t: T, c: Conflict, replace: boolean): string {
  if (replace) return c.byName === true ? t('io.updateOne', { existing: c.existing }) : t('io.replaceOne')
  return c.keepAs === undefined || c.keepAs === c.name ? t('io.keepBoth') : t('io.keepBothAs', { name: c.keepAs })
}

/** What differs in one clash, under its line; nothing when the host named no difference. */
function ClashLine({ text }: { text: string }): ReactNode {
  return text === '' ? null : (
    <span className="ap-hint ap-io-clash" data-ap-clash="">
      {text}
    </span>
  )
}

/** Export one profile as a Card PNG (picture drawn here when needed), a Card JSON or a Markdown file. */
export function ProfileExport({ state }: { state: Pick<WireState, 'activeId' | 'profiles'> }): ReactNode {
  const t = useT()
  const client = useApi()
  const [chosen, setChosen] = useState(state.activeId)
  const [error, setError] = useState('')
  const profile = state.profiles.find((p) => p.id === chosen) ?? state.profiles[0]
  if (profile === undefined) return null
  const url = (format: string) => client.urlOf('export.profile', { param: profile.id, query: { format } })
  const savePng = async (): Promise<void> => {
    setError('')
    try {
      download(
        await cardPngWithPicture(url('card-png'), profile.id, profile.emoji),
        `${fileBaseName(profile.name, profile.id)}.png`,
      )
    } catch (e) {
      setError(describeError(t, e))
    }
  }
  return (
    <div className="ap-io-one">
      <label className="ap-row">
        <span>{t('io.exportProfile')}</span>
        <select
          className="ap-select"
          value={profile.id}
          onChange={(e) => {
            setChosen(e.currentTarget.value)
          }}
        >
          {state.profiles.map((p) => (
            <option key={p.id} value={p.id}>{`${p.emoji} ${p.name}`}</option>
          ))}
        </select>
      </label>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn"
          onClick={() => {
            void savePng()
          }}
        >
          {t('io.exportCardPng')}
        </button>
        <a className="ap-btn" href={url('card-json')} download>
          {t('io.exportCardJson')}
        </a>
        <a className="ap-btn" href={url('charx')} download>
          {t('io.exportCharx')}
        </a>
        <a className="ap-btn" href={url(activeLocale() === 'en' ? 'markdown&lang=en' : 'markdown')} download>
          {t('io.exportMarkdown')}
        </a>
      </div>
      <span className="ap-hint">{t('io.exportOneHint')}</span>
      {error !== '' && (
        <div className="ap-error" role="alert">
          {error}
        </div>
      )}
    </div>
  )
}
