/**
 * "Bring your memory" from another assistant's data export: the user chooses the export ChatGPT or Claude mailed
 * (the zip, or its conversations.json), sees what it holds (conversations, messages, the period), picks what to learn
 * from (all, two days, a word), into which memory (About you by default, or a profile) and on which model, and sees
 * what learning it costs (model calls, tokens) before anything is spent. Its state is use-learn-export.ts's; it
 * renders only.
 */
import { useId, useRef, type ReactNode } from 'react'
import type { WireState } from '../../../shared/wire-state.ts'
import type { LearnFound, LearnPlanReply } from '../../../shared/learn.ts'
import type { ImportNote } from '../../../shared/import-notes.ts'
import { OutcomeLine } from '../../common/Outcome.tsx'
import { activeLocale, useT, type T } from '../../copy/locales.ts'
import { useLearnExport, type LearnExportState, type PickKind } from './use-learn-export.ts'
import { LearnRun } from './LearnRun.tsx'
import { LearnFromPast } from './LearnFromPast.tsx'

const KINDS: readonly PickKind[] = ['all', 'range', 'word']

/** A day as YYYY-MM-DD in the page's time zone (the form of the date inputs). */
function dayOf(at: number): string {
  const d = new Date(at)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`
}

/** A count as the page's language writes it (12,345). */
const num = (n: number) => n.toLocaleString(activeLocale() === 'en' ? 'en' : 'zh-CN')

/** What the export holds, in a sentence. */
function foundText(t: T, found: LearnFound): string {
  const counts = { count: found.conversations, messages: num(found.messages) }
  const head =
    found.service === 'dsh'
      ? t('learn.past.found', counts)
      : t('learn.export.found', { service: t(`learn.source.${found.service}`), ...counts })
  return found.to === 0 ? head : head + t('learn.export.period', { from: dayOf(found.from), to: dayOf(found.to) })
}

/** What learning the pick costs, in a sentence. */
function planText(t: T, plan: LearnPlanReply, model: string): string {
  if (plan.calls === 0) return t('learn.plan.none')
  return t('learn.plan', {
    count: plan.calls,
    conversations: num(plan.conversations),
    input: num(plan.inputTokens),
    output: num(plan.outputTokens),
    model,
  })
}

/** The pick: which conversations, which memory, which model, and the button that asks what it costs. */
function PickFields({ s, state }: { s: LearnExportState; state: WireState }): ReactNode {
  const t = useT()
  const ids = useId()
  const select = (id: string, label: string, value: string, set: (v: string) => void, options: ReactNode) => (
    <>
      <label htmlFor={`${ids}${id}`}>{label}</label>
      <select id={`${ids}${id}`} className="ap-select" value={value} onChange={(e) => set(e.currentTarget.value)}>
        {options}
      </select>
    </>
  )
  const input = (id: string, label: string, type: string, value: string, set: (v: string) => void) => (
    <>
      <label htmlFor={`${ids}${id}`}>{label}</label>
      <input
        id={`${ids}${id}`}
        className="ap-input"
        type={type}
        value={value}
        onChange={(e) => set(e.currentTarget.value)}
      />
    </>
  )
  const { form, setForm } = s
  return (
    <div className="ap-row ap-learn-pick">
      {select(
        'kind',
        t('learn.pick.what'),
        form.kind,
        (v) => setForm({ kind: v as PickKind }),
        KINDS.map((k) => (
          <option key={k} value={k}>
            {t(`learn.pick.${k}`)}
          </option>
        )),
      )}
      {form.kind === 'range' && input('from', t('learn.pick.from'), 'date', form.from, (v) => setForm({ from: v }))}
      {form.kind === 'range' && input('to', t('learn.pick.to'), 'date', form.to, (v) => setForm({ to: v }))}
      {form.kind === 'word' && input('word', t('learn.pick.wordLabel'), 'text', form.word, (v) => setForm({ word: v }))}
      {select('into', t('learn.into'), form.into, (v) => setForm({ into: v }), [
        <option key="" value="">
          {t('learn.intoUser')}
        </option>,
        ...state.profiles.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        )),
      ])}
      {select('model', t('learn.model'), form.model, (v) => setForm({ model: v }), [
        <option key="" value="">
          {t('learn.modelDefault')}
        </option>,
        ...s.models.map((m, i) => (
          <option key={i} value={String(i)}>
            {m.label}
          </option>
        )),
      ])}
      <button type="button" className="ap-btn" disabled={s.busy} onClick={() => void s.estimate()}>
        {t('learn.estimate')}
      </button>
    </div>
  )
}

/** Props of {@link LearnFromExport}. */
export interface LearnFromExportProps {
  state: WireState
  /** How an import refusal is worded (the import section's words, lib/client/settings/import-report.ts). */
  noteText: (t: T, note: ImportNote) => string
}

/** The export chooser, what it holds, the pick and its cost. */
export function LearnFromExport({ state, noteText }: LearnFromExportProps): ReactNode {
  const t = useT()
  const s = useLearnExport(noteText)
  const file = useRef<HTMLInputElement | null>(null)
  const found = s.reply.found
  const model = s.models[Number(s.form.model)]
  return (
    <section className="ap-panel ap-learn-export" aria-label={t('learn.export.title')}>
      <h3>{t('learn.export.title')}</h3>
      <span className="ap-hint">{t('learn.export.hint')}</span>
      <div className="ap-row">
        <input
          ref={file}
          type="file"
          accept=".zip,.json,application/zip,application/json"
          hidden
          aria-label={t('learn.export.choose')}
          onChange={(e) => {
            const chosen = e.currentTarget.files?.[0]
            e.currentTarget.value = ''
            if (chosen !== undefined) void s.send(chosen)
          }}
        />
        <button type="button" className="ap-btn" disabled={s.busy} onClick={() => file.current?.click()}>
          {t('learn.export.choose')}
        </button>
      </div>
      <LearnFromPast s={s} />
      {found !== undefined && (
        <>
          <p data-ap-learn-found="">{foundText(t, found)}</p>
          <PickFields s={s} state={state} />
        </>
      )}
      {s.plan !== null && (
        <p data-ap-learn-plan="">
          {planText(t, s.plan, s.form.model === '' || model === undefined ? t('learn.modelDefault') : model.label)}
        </p>
      )}
      <LearnRun pick={s.plan === null || s.plan.calls === 0 ? null : s.pick} />
      <OutcomeLine outcome={s.outcome?.text === '' ? null : s.outcome} />
    </section>
  )
}
