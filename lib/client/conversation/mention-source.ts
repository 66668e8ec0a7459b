/**
 * The composer's `@` source for profiles: typing `@` offers the profiles and the whole cast (`@所有人` / `@all`), beside
 * the host's own file and session references, which keep their own source; picking one inserts `@<name> ` as plain
 * text, which the host reads when the message is sent (lib/shared/mentions.ts, lib/prompt/speakers.ts). It owns the
 * candidates, the pick and the names the composer decorates; it never sends, never blocks a send and never writes
 * anything.
 */
import type { InputTriggerCandidate, InputTriggerSource } from '@deepseek-ai/dsh-client-ui-input-trigger/client'
import type { ApiClient } from '../data/api.ts'
import type { ProfileHead } from '../../shared/wire-state.ts'
import { ALL_ID, ALL_WORDS } from '../../shared/mentions.ts'

/** The source's name in the host's registry (unique per trigger: the host's own `@` source is 'reference'). */
const MENTION_SOURCE = 'agent-profiles'

/** Profiles offered at most for one query (a user may have hundreds; the menu is for picking, not browsing). */
export const MENTION_CANDIDATES = 12

/** The host's trigger registry, as far as this source uses it. */
export interface InputTriggersLike {
  registerSource(source: InputTriggerSource): () => void
}

/** The profiles matching `query`: names starting with it first, then names containing it, each in the list's order. */
export function matchingProfiles(profiles: readonly ProfileHead[], query: string): ProfileHead[] {
  const q = query.trim().toLowerCase()
  if (q === '') return profiles.slice(0, MENTION_CANDIDATES)
  const starts: ProfileHead[] = []
  const contains: ProfileHead[] = []
  for (const p of profiles) {
    const name = p.name.toLowerCase()
    if (name.startsWith(q)) starts.push(p)
    else if (name.includes(q)) contains.push(p)
  }
  return [...starts, ...contains].slice(0, MENTION_CANDIDATES)
}

/**
 * The word for the whole cast the menu offers for `query`: the word of the page's language for an empty query, else
 * the first word of the plugin's that starts with it (`a` → all, `大` → 大家); undefined when none does.
 */
function allWordFor(query: string, language: string): string | undefined {
  const q = query.trim().toLowerCase()
  if (q === '') return language.startsWith('en') ? 'all' : '所有人'
  return ALL_WORDS.find((w) => w.startsWith(q))
}

/** The `@` source over `client`'s state; `t` words the menu in the page's language (`language`, 'zh' or 'en'). */
export function mentionSource(
  client: ApiClient,
  t: (key: 'mention.section' | 'mention.candidate' | 'mention.allCandidate', params?: Record<string, string>) => string,
  language: () => string = () => 'zh',
): InputTriggerSource {
  const profiles = async (): Promise<readonly ProfileHead[]> => {
    const snap = client.getSnapshot()
    if (snap.state !== null) return snap.state.profiles
    return (await client.refresh()).state?.profiles ?? []
  }
  return {
    trigger: '@',
    name: MENTION_SOURCE,
    // Above the files: a profile is what a short `@name` most likely means in a conversation.
    order: -1,
    showGroupTitle: false,
    async candidates(_session, { query, signal }) {
      const all = await profiles()
      if (signal.aborted) return []
      const word = allWordFor(query, language())
      const everyone: InputTriggerCandidate[] =
        word === undefined
          ? []
          : [
              {
                name: word,
                icon: '👥',
                description: t('mention.allCandidate'),
                section: t('mention.section'),
                value: ALL_ID,
              },
            ]
      return [
        ...everyone,
        ...matchingProfiles(all, query).map((p): InputTriggerCandidate => ({
          name: p.name,
          ...(p.emoji ? { icon: p.emoji } : {}),
          description: t('mention.candidate', { name: p.name }),
          section: t('mention.section'),
          value: p.id,
        })),
      ]
    },
    onPick({ candidate }) {
      if (candidate.value === ALL_ID) return { text: `@${candidate.name} ` }
      const profile = client.getSnapshot().state?.profiles.find((p) => p.id === candidate.value)
      return profile === undefined ? undefined : { text: `@${profile.name} ` }
    },
    warm() {
      if (client.getSnapshot().status === 'idle') void client.refresh()
    },
    lexicon() {
      const names = client.getSnapshot().state?.profiles.map((p) => p.name)
      return names === undefined ? undefined : [...ALL_WORDS, ...names]
    },
    subscribeLexicon(_session, listener) {
      return client.subscribe(listener)
    },
  }
}
