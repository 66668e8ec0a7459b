/**
 * A row above the composer (slot `conversation.input.dock`) that says, before anything is sent, when an `@` in the
 * draft reaches no one profile (it starts several names, it could be a name or a longer one that extends it, or two
 * profiles share it) or asks the whole cast of a conversation that has none. It reads the draft the same way the host
 * reads the sent message (lib/shared/mentions.ts). A word still being typed (the draft ends in it) is not judged yet,
 * and a word that names no profile is never flagged: it may be a file reference or plain text, and the `@` menu
 * already shows which profiles there are. It never blocks a send and never writes anything.
 */
import { useMemo, type ReactNode } from 'react'
import { ALL_ID, readMentions, type AmbiguousMention } from '../../shared/mentions.ts'
import { useApState, useConversation } from '../data/api.ts'
import { useT, type T } from '../copy/locales.ts'

/** Props the dock seat passes that the row reads: the conversation and its composer's state. */
export interface MentionWarningsProps {
  sessionId: string
  useInput?: <R>(selector: (input: { draft?: string } | undefined) => R) => R
}

/** Warnings shown at most (a draft can hold many `@` words; the first few say what is wrong). */
const SHOWN = 3

/** The warning row; nothing while the draft addresses only profiles that exist, once each. */
export function MentionWarnings({ sessionId, useInput }: MentionWarningsProps): ReactNode {
  const t = useT()
  const draft = useInput?.((input) => input?.draft ?? '') ?? ''
  const profiles = useApState().state?.profiles
  const hasAt = draft.includes('@')
  const conversation = useConversation(sessionId)
  const reading = useMemo(
    () => (hasAt && profiles ? readMentions(draft, profiles) : undefined),
    [hasAt, draft, profiles],
  )
  if (reading === undefined) return null
  const nameOf = (id: string) =>
    id === ALL_ID ? t('mention.everyone') : (profiles?.find((p) => p.id === id)?.name ?? id)
  const lines = [
    ...reading.ambiguous.filter((a) => a.end < draft.length).map((a) => ambiguityText(t, a, nameOf)),
    ...(reading.all && (conversation?.setting?.cast?.length ?? 0) === 0 ? [t('mention.all')] : []),
  ].slice(0, SHOWN)
  if (lines.length === 0) return null
  return (
    <div className="ap-root ap-mention-warnings" role="status" data-ap-mention-warnings="">
      {lines.map((line) => (
        <div key={line} className="ap-mention-warning">
          {line}
        </div>
      ))}
    </div>
  )
}

/** The warning for one word that reaches no one profile, by why. */
function ambiguityText(t: T, a: AmbiguousMention, nameOf: (id: string) => string): string {
  const names = a.ids.map(nameOf)
  if (a.why === 'nested') return t('mention.nested', { word: a.word, names })
  if (a.why === 'same') return t('mention.same', { word: a.word, count: a.ids.length })
  return t('mention.ambiguous', { word: a.word, count: a.ids.length, names })
}
