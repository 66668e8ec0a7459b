/**
 * A row above the composer (slot `conversation.input.dock`) that says, while the user types and before anything is
 * sent, when an `@` in the draft names no profile, names several, or asks the whole cast of a conversation that has
 * none. It reads the draft the same way the host reads the sent message (lib/shared/mentions.ts); it never blocks a
 * send — an `@word` may be a file reference or plain text — and never writes anything.
 */
import { useMemo, type ReactNode } from 'react'
import { readMentions } from '../../shared/mentions.ts'
import { useApState, useConversation } from '../data/api.ts'
import { useT } from '../copy/locales.ts'

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
  const nameOf = (id: string) => profiles?.find((p) => p.id === id)?.name ?? id
  const lines = [
    ...reading.unknown.map((word) => t('mention.unknown', { word })),
    ...reading.ambiguous.map((a) =>
      t('mention.ambiguous', { word: a.word, count: a.ids.length, names: a.ids.map(nameOf) }),
    ),
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
