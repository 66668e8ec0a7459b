/**
 * The composer's `@` source for profiles: typing `@` offers the profiles (beside the host's own file and session
 * references, which keep their own source), and picking one inserts `@<name> ` as plain text, which the host reads when
 * the message is sent (lib/shared/mentions.ts, lib/prompt/speakers.ts). It owns the candidates, the pick and the
 * names the composer decorates; it never sends, never blocks a send and never writes anything.
 */
import type { InputTriggerCandidate, InputTriggerSource } from '@deepseek-ai/dsh-client-ui-input-trigger/client'
import type { ApiClient } from '../data/api.ts'
import type { ProfileHead } from '../../shared/contract.ts'

/** The source's name in the host's registry (unique per trigger: the host's own `@` source is 'reference'). */
export const MENTION_SOURCE = 'agent-profiles'

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

/** The `@` source over `client`'s state; `t` words the menu in the page's language. */
export function mentionSource(
  client: ApiClient,
  t: (key: 'mention.section' | 'mention.candidate', params?: Record<string, string>) => string,
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
      return matchingProfiles(all, query).map((p): InputTriggerCandidate => ({
        name: p.name,
        ...(p.emoji ? { icon: p.emoji } : {}),
        description: t('mention.candidate', { name: p.name }),
        section: t('mention.section'),
        value: p.id,
      }))
    },
    onPick({ candidate }) {
      const profile = client.getSnapshot().state?.profiles.find((p) => p.id === candidate.value)
      return profile === undefined ? undefined : { text: `@${profile.name} ` }
    },
    warm() {
      if (client.getSnapshot().status === 'idle') void client.refresh()
    },
    lexicon() {
      return client.getSnapshot().state?.profiles.map((p) => p.name)
    },
    subscribeLexicon(_session, listener) {
      return client.subscribe(listener)
    },
  }
}
