/**
 * "Bring your memory" by pasting: the user pastes ChatGPT's saved memories (copied from its settings page) or any list
 * of facts, says where it came from and which memory takes it (About you by default, or a profile), and each line
 * becomes a fact with that origin (`memory.paste`, lib/commands/paste.ts). Says what happened in words: how many
 * facts came in and how many the memory already had. It never reads or parses the list itself: the host does.
 */
import { useId, useState, type ReactNode } from 'react'
import type { WireState } from '../../../shared/wire-state.ts'
import { LIMITS } from '../../../state/model.ts'
import { useApi } from '../../data/api.ts'
import { noticeText } from '../../common/feedback.ts'
import { OutcomeLine } from '../../common/Outcome.tsx'
import { useAction } from '../../common/use-action.ts'
import { useT } from '../../copy/locales.ts'

/** Where a pasted list may come from, as the page names it in the fact's origin. */
const SOURCES = ['chatgpt', 'claude', 'elsewhere'] as const

/** Props of {@link PasteFacts}. */
export interface PasteFactsProps {
  state: WireState
}

/** A text box for a pasted list, where it came from, the memory it goes to, and the button that adds it. */
export function PasteFacts({ state }: PasteFactsProps): ReactNode {
  const t = useT()
  const client = useApi()
  const ids = useId()
  const [text, setText] = useState('')
  const [source, setSource] = useState<(typeof SOURCES)[number]>('chatgpt')
  // '' is About you; else a profile's id.
  const [into, setInto] = useState('')
  const { busy, outcome, run } = useAction()

  const add = () =>
    run(async () => {
      const reply = await client.command('memory.paste', {
        target: into === '' ? { user: true } : { profileId: into },
        text,
        origin: t('learn.paste.origin', { from: t(`learn.source.${source}`) }),
      })
      const said = noticeText(t, reply.notice)
      setText('')
      return said
    })

  return (
    <div className="ap-learn-paste">
      <h3>{t('learn.paste.title')}</h3>
      <span className="ap-hint">{t('learn.paste.hint')}</span>
      <textarea
        className="ap-textarea"
        aria-label={t('learn.paste.label')}
        rows={6}
        maxLength={LIMITS.pastedList}
        value={text}
        onChange={(e) => {
          setText(e.currentTarget.value)
        }}
      />
      <div className="ap-row">
        <label htmlFor={`${ids}source`}>{t('learn.paste.from')}</label>
        <select
          id={`${ids}source`}
          className="ap-select"
          value={source}
          onChange={(e) => {
            setSource(e.currentTarget.value as (typeof SOURCES)[number])
          }}
        >
          {SOURCES.map((s) => (
            <option key={s} value={s}>
              {t(`learn.source.${s}`)}
            </option>
          ))}
        </select>
        <label htmlFor={`${ids}into`}>{t('learn.into')}</label>
        <select
          id={`${ids}into`}
          className="ap-select"
          value={into}
          onChange={(e) => {
            setInto(e.currentTarget.value)
          }}
        >
          <option value="">{t('learn.intoUser')}</option>
          {state.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="ap-btn"
          disabled={busy || text.trim() === ''}
          onClick={() => {
            void add()
          }}
        >
          {t('learn.paste.add')}
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
    </div>
  )
}
