/**
 * React hook of "learn from an export": sending the file the user chose (its bytes, read in the browser), or
 * asking the host to read the user's own past dsh conversations (of one workspace or all) in its place, what the
 * host found or why it could not read it, the user's pick (all, a day range, a word; the memory that learns;
 * the model) and the plan of that pick (calls and tokens) the host answers. It never reads the export itself: the
 * host does, in its import worker.
 */
import { useCallback, useState } from 'react'
import type { ModelCatalog } from '../../../shared/models.ts'
import type { LearnExportReply, LearnPick, LearnPlanReply } from '../../../shared/learn.ts'
import { useApi } from '../../data/api.ts'
import { useAction, type Action } from '../../common/use-action.ts'
import { WordedError } from '../../common/feedback.ts'
import { useT } from '../../copy/locales.ts'
import type { ImportNote } from '../../../shared/import-notes.ts'
import type { T } from '../../copy/locales.ts'

/** Which conversations the user picks: all, those between two days, those that mention a word. */
export type PickKind = 'all' | 'range' | 'word'

/** What the form holds: the days as the date inputs give them (YYYY-MM-DD, '' for open). */
interface PickForm {
  kind: PickKind
  from: string
  to: string
  word: string
  /** '' for About you, else a profile's id. */
  into: string
  /** '' for dsh's default model, else an index into the models offered. */
  model: string
}

/** A model the user may pick. */
interface ModelOption {
  provider: string
  model: string
  label: string
}

/** The state and the actions of the section. */
export interface LearnExportState extends Pick<Action, 'busy' | 'outcome'> {
  reply: LearnExportReply
  form: PickForm
  setForm(patch: Partial<PickForm>): void
  models: ModelOption[]
  plan: LearnPlanReply | null
  /** The pick the form says, as the host takes it. */
  pick: LearnPick
  send(file: File): Promise<void>
  estimate(): Promise<void>
  /** The workspaces of the user's past conversations, once they were read ('' in `cwd`: all); null before. */
  workspaces: string[] | null
  /** Past conversations of the pick the host could not read (left out). */
  unread: number
  cwd: string
  /** Read the user's own past dsh conversations (of workspace `cwd`, '' for all) in place of an export. */
  readPast(cwd: string): Promise<void>
}

const FIRST_FORM: PickForm = { kind: 'all', from: '', to: '', word: '', into: '', model: '' }

/** The file's bytes, through FileReader: Blob.arrayBuffer() is missing in older WebViews (and in jsdom). */
function readBytes(file: File): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(reader.result as ArrayBuffer)
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`))
    reader.readAsArrayBuffer(file)
  })
}

/** The start (or, with `end`, the last millisecond) of a YYYY-MM-DD day in the page's time zone. */
function dayTime(day: string, end = false): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (m === null) return undefined
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime()
  return end ? start + 86_400_000 - 1 : start
}

/** The pick the form says, as the host takes it. */
function pickOf(form: PickForm, models: readonly ModelOption[]): LearnPick {
  const pick: LearnPick = { into: form.into === '' ? { user: true } : { profileId: form.into } }
  if (form.kind === 'range') {
    const from = dayTime(form.from)
    const to = dayTime(form.to, true)
    if (from !== undefined) pick.from = from
    if (to !== undefined) pick.to = to
  }
  if (form.kind === 'word' && form.word.trim() !== '') pick.word = form.word.trim()
  const model = form.model === '' ? undefined : models[Number(form.model)]
  if (model !== undefined) pick.model = { provider: model.provider, model: model.model }
  return pick
}

/** The models the catalog offers, one option each. */
function optionsOf(catalog: ModelCatalog): ModelOption[] {
  return catalog.providers.flatMap((p) =>
    p.models.map((m) => ({ provider: p.id, model: m.id, label: `${p.name} / ${m.name}` })),
  )
}

/** The section's state over the page's client. */
export function useLearnExport(noteText: (t: T, note: ImportNote) => string): LearnExportState {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run } = useAction()
  const [reply, setReply] = useState<LearnExportReply>({})
  const [form, setWhole] = useState<PickForm>(FIRST_FORM)
  const [models, setModels] = useState<ModelOption[]>([])
  const [plan, setPlan] = useState<LearnPlanReply | null>(null)
  const [workspaces, setWorkspaces] = useState<string[] | null>(null)
  const [cwd, setCwd] = useState('')
  const [unread, setUnread] = useState(0)
  const setForm = useCallback((patch: Partial<PickForm>) => {
    setWhole((f) => ({ ...f, ...patch }))
    setPlan(null)
  }, [])

  const send = (file: File) =>
    run(async () => {
      setPlan(null)
      const type = file.name.toLowerCase().endsWith('.json') ? 'application/json' : 'application/zip'
      const next = await client.call('learn.export.send', { raw: { bytes: await readBytes(file), type } })
      if (next.refused !== undefined)
        throw new WordedError(t('learn.export.refused', { file: file.name, reason: noteText(t, next.refused) }))
      setReply(next)
      setWorkspaces(null)
      setUnread(0)
      await planAll()
      return ''
    })

  // What the whole export costs, at once: the first thing a user wants to know.
  const planAll = async () => {
    setPlan(await client.call('learn.plan', { body: pickOf(form, models) }))
    if (models.length === 0) setModels(optionsOf(await client.models().catch(() => ({ providers: [], failures: [] }))))
  }

  const readPast = (chosen: string) =>
    run(async () => {
      setPlan(null)
      setCwd(chosen)
      const {
        workspaces: found,
        unread: left,
        ...next
      } = await client.call('learn.past', {
        body: chosen === '' ? {} : { cwd: chosen },
      })
      setReply(next)
      setWorkspaces(found)
      setUnread(left)
      await planAll()
      return ''
    })

  const estimate = () =>
    run(async () => {
      setPlan(await client.call('learn.plan', { body: pickOf(form, models) }))
      return ''
    })

  const pick = pickOf(form, models)
  return { busy, outcome, reply, form, setForm, models, plan, pick, send, estimate, workspaces, unread, cwd, readPast }
}
