/**
 * React hook of the import and export section's state: the import mode, whether the export carries the user layer,
 * the per-file lines of the last files import, the clashing ids waiting for the user's choice, and the actions
 * (import the picked files, apply or skip a clash choice, the two maintenance actions), busy and worded through the
 * one {@link useAction}. It asks before anything is replaced and never renders beyond the confirmation dialog.
 */
import { useRef, useState, type ReactNode, type RefObject } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi } from '../data/api.ts'
import { isCardJson } from './card-files.ts'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { WordedError, noticeText } from '../common/feedback.ts'
import { useAction, type Action } from '../common/use-action.ts'
import { useT, type T } from '../copy/locales.ts'
import { FilesRefused, importChosen, importPicked, type AskLarge, type FilesOutcome } from './ProfileFiles.tsx'

/** How an import treats the profiles already here. */
export type ImportMode = 'merge' | 'replace'

/** The two maintenance actions that wipe data. */
type Maintenance = 'sessions.clearAll' | 'state.restoreDefaults'

/** The section's state and actions. */
export interface ImportExportState {
  /** The confirmation dialog to render, when one is open. */
  dialog: ReactNode
  action: Action
  mode: ImportMode
  setMode(mode: ImportMode): void
  withUser: boolean
  setWithUser(withUser: boolean): void
  /** One line per file of the last files import that needs attention (shown under the outcome). */
  details: readonly string[]
  /** The clashing ids of the last files import and the files waiting on the user's choice, or null. */
  waiting: Pick<FilesOutcome, 'conflicts' | 'pending'> | null
  /** Counts the large own files sent in the background, so the progress bar asks how the new one goes. */
  ownStarted: number
  /** The hidden file input the import buttons open. */
  file: RefObject<HTMLInputElement>
  /** Open the file picker, for files or (with `folder`) a whole folder. */
  pick(folder: boolean): void
  importMany(chosen: File[]): Promise<void>
  /** Import the waiting files, replacing the clashing profiles whose ids are in `replace` (the others kept beside). */
  applyChoice(replace: readonly string[]): void
  skipChoice(): void
  /** Ask `question`, then run the maintenance action `op` (after the page's own question when it replaces profiles). */
  wipe(question: string, op: Maintenance): Promise<void>
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

/** The file's JSON, or the sentence saying why there is none (the file could not be read, or is no JSON). */
async function readPayload(t: T, chosen: File): Promise<{ payload: unknown } | { refused: string }> {
  let text: string
  try {
    text = await readText(chosen)
  } catch {
    // The browser's words for it are in the browser's language and name no file: the user learns which, and why.
    return { refused: t('io.readError', { file: chosen.name }) }
  }
  try {
    return { payload: JSON.parse(text) as unknown }
  } catch {
    // The parser's own words ("Unexpected token…") are for developers: the user learns what the file is not.
    return { refused: t('io.parseError', { file: chosen.name }) }
  }
}

/** An action's outcome with what a files import adds beside its sentence: the per-file lines and the clash choice. */
interface FilesRun {
  details: readonly string[]
  waiting: ImportExportState['waiting']
  setWaiting(waiting: ImportExportState['waiting']): void
  /** Run `work` through the action; the lines and the choice are cleared with the outcome and set from its result. */
  run(work: () => Promise<string | FilesOutcome>): Promise<void>
  /** Show `message` as the outcome of a file refused before any request, the surface never busy. */
  refuse(message: string): void
}

/** The per-file lines and the clash choice held beside `action`'s outcome. */
function useFilesRun(action: Action): FilesRun {
  const [details, setDetails] = useState<readonly string[]>([])
  const [waiting, setWaiting] = useState<ImportExportState['waiting']>(null)
  const run = (work: () => Promise<string | FilesOutcome>): Promise<void> =>
    action.run(async () => {
      setDetails([])
      setWaiting(null)
      try {
        const done = await work()
        if (typeof done === 'string') return done
        setDetails(done.details)
        if (done.conflicts.length > 0) setWaiting({ conflicts: done.conflicts, pending: done.pending })
        return done.message
      } catch (error) {
        if (error instanceof FilesRefused) setDetails(error.lines)
        throw error
      }
    })
  const refuse = (message: string): void => {
    setDetails([])
    action.fail(new WordedError(message))
  }
  return { details, waiting, setWaiting, run, refuse }
}

/** The import and export section's state, for `state` (`beforeReplace` false cancels a replacing action). */
export function useImportExport(state: WireState, beforeReplace: () => Promise<boolean>): ImportExportState {
  const t = useT()
  const client = useApi()
  const action = useAction()
  const { details, waiting, setWaiting, run, refuse } = useFilesRun(action)
  const [dialog, ask] = useConfirm()
  const file = useRef<HTMLInputElement>(null)
  const [mode, setMode] = useState<ImportMode>('merge')
  // Off by default: the file may be shared, and facts about the user are theirs to hand out.
  const [withUser, setWithUser] = useState(false)
  const [ownStarted, setOwnStarted] = useState(0)

  const importFile = async (chosen: File): Promise<void> => {
    const read = await readPayload(t, chosen)
    if ('refused' in read) return refuse(read.refused)
    if (
      mode === 'replace' &&
      !(await ask(t('io.confirmReplace', { file: chosen.name, count: state.profiles.length }), { danger: true }))
    )
      return
    if (mode === 'replace' && !(await beforeReplace())) return
    await run(async () => {
      const reply = await client.command('state.import', { payload: read.payload, mode })
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
    const confirmLarge: AskLarge = async (large) => {
      if (!(await ask(t('io.confirmLarge', { ...large })))) return false
      await action.say(async () => t('io.importingLarge', { file: large.file }))
      return true
    }
    await run(() =>
      importPicked(client, t, chosen, confirmLarge, () => {
        setOwnStarted((n) => n + 1)
      }),
    )
  }

  const pick = (folder: boolean): void => {
    if (file.current === null) return
    file.current.webkitdirectory = folder
    file.current.click()
  }

  const wipe = async (question: string, op: Maintenance): Promise<void> => {
    if (!(await ask(question, { danger: true }))) return
    if (op === 'state.restoreDefaults' && !(await beforeReplace())) return
    await run(async () => noticeText(t, (await client.command(op)).notice))
  }

  return {
    dialog,
    action,
    mode,
    setMode,
    withUser,
    setWithUser,
    details,
    waiting,
    ownStarted,
    file,
    pick,
    importMany,
    applyChoice: (replace) => {
      if (waiting !== null) void run(() => importChosen(client, t, waiting.pending, replace))
    },
    skipChoice: () => {
      setWaiting(null)
    },
    wipe,
  }
}
