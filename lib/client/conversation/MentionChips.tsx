/**
 * Profile mentions in a sent message, drawn as mentions. The host draws every `@word` of a user's message as a file
 * reference chip (a document icon, and the text after it pushed onto a line of its own), since it knows no mention of
 * profiles. Under the user's row (the turn head's registration, turn-head.ts) this marks, after each render, the
 * chips of that message that are profile mentions or `@all` as read by lib/shared/mentions.ts (`data-ap-mention` on
 * the chip, `data-ap-mentions` on its bubble), and our stylesheet draws those as a mention: `@name` in the mention
 * colour, no icon, in the line of the text. It only sets those two attributes on the host's elements (React keeps
 * attributes it never set), never moves, adds or removes a node, and never touches a chip that is a file reference.
 */
import { useLayoutEffect, type ReactNode, type RefObject } from 'react'
import { ALL_WORDS, readMentions } from '../../shared/mentions.ts'
import { useApState } from '../data/api.ts'

/** The text of a user message's content as the host keeps it: a string, or blocks of which the text ones count. */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b: unknown) =>
      typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text'
        ? String((b as { text?: unknown }).text ?? '')
        : '',
    )
    .join('')
}

/** The `@…` forms of `text` that reach a profile or the whole cast, as typed (`@审阅员`, `@Code Buddy`, `@all`). */
function mentionForms(text: string, profiles: readonly { id: string; name: string }[]): string[] {
  const reading = readMentions(text, profiles)
  const forms = reading.mentions.map((m) => text.slice(m.start, m.end))
  if (reading.all) forms.push(...ALL_WORDS.map((w) => `@${w}`))
  return forms
}

/** True when a chip titled `title` (the host's token, `@Code` of `@Code Buddy`, `@审阅员帮我` of `@审阅员帮我…`) is one of `forms`. */
function isMention(title: string, forms: readonly string[]): boolean {
  const t = title.toLowerCase()
  return forms.some((f) => {
    const g = f.toLowerCase()
    return g.startsWith(t) || t.startsWith(g)
  })
}

/** Marks the mention chips of the user row in `row` (see the module header); draws nothing itself. */
export function MentionChips({ row, content }: { row: RefObject<HTMLElement | null>; content: unknown }): ReactNode {
  const profiles = useApState().state?.profiles
  useLayoutEffect(() => {
    const root = row.current
    if (root === null || profiles === undefined) return
    const forms = mentionForms(messageText(content), profiles)
    for (const chip of root.querySelectorAll<HTMLElement>('[data-ref-chip]')) {
      const mention = forms.length > 0 && isMention(chip.title, forms)
      chip.toggleAttribute('data-ap-mention', mention)
      if (mention) chip.parentElement?.setAttribute('data-ap-mentions', '')
    }
  })
  return null
}
