/**
 * A long-time user, for the e2e specs that meet memory at scale (recall-keys, memory-list): the real `dsh web` and
 * Chromium booted with one new profile that holds years of facts, the store's memory search as the settings page asks
 * it, and the model request of a question with what recall put after it. It asserts nothing; the spec says what must
 * hold.
 */
import type { MemorySearchReply } from '../../lib/shared/wire-replies.ts'
import type { MemoryItem, Profile } from '../../lib/state/model.ts'
import { startBrowserApp, type BrowserApp } from './browser.ts'
import type { Host } from './host-api.ts'
import { isTitleRequest, type ModelServer, type RecordedRequest } from './model-server.ts'

const HOUR = 3_600_000

/** `count` facts saved four hours apart, the last one four hours ago: fact `i` is `fact(i)` (source auto unless said). */
export function factsOverTime(count: number, fact: (i: number) => Partial<MemoryItem>): Partial<MemoryItem>[] {
  const now = Date.now()
  return Array.from({ length: count }, (_, i) => ({ source: 'auto', at: now - (count - i) * 4 * HOUR, ...fact(i) }))
}

/** The app booted with a new profile `name` (and `emoji`) whose memory holds `items`; the config `patch` when given. */
export async function startWithHistory(options: {
  name: string
  emoji: string
  items: Partial<MemoryItem>[]
  patch?: string
}): Promise<{ app: BrowserApp; profileId: string }> {
  let profileId = ''
  const app = await startBrowserApp({
    ...(options.patch === undefined ? {} : { patch: options.patch }),
    prepare: async (host) => {
      const created = await host.command<{ profile: Profile }>({
        op: 'profile.create',
        profile: {
          name: options.name,
          emoji: options.emoji,
          role: '你是长期陪伴用户的助手。',
          memory: { summary: '', items: options.items },
        },
      })
      profileId = created.profile.id
    },
  })
  return { app, profileId }
}

/** Profile `profileId`'s memory items that match `q`, as the settings page's search box asks the store. */
export async function searchMemory(host: Host, profileId: string, q: string): Promise<MemorySearchReply> {
  const res = await fetch(
    `${host.web.url}/__ap/memory/search?layer=profile&owner=${profileId}&q=${encodeURIComponent(q)}`,
  )
  return (await res.json()) as MemorySearchReply
}

/**
 * The model request that answers the user's question carrying `marker` (never the title's), and that request's
 * messages from the question on, as JSON: where recall puts what it found (runtime context, after the question).
 */
export async function questionAsked(
  model: ModelServer,
  marker: string,
): Promise<{ request: RecordedRequest; fromQuestion: string }> {
  const carries = (m: RecordedRequest['messages'][number]): boolean =>
    m.role === 'user' && JSON.stringify(m.content ?? '').includes(marker)
  const [request] = await model.waitFor((r) => !isTitleRequest(r) && r.messages.some(carries), 1, 60_000)
  return {
    request: request!,
    fromQuestion: JSON.stringify(request!.messages.slice(request!.messages.findIndex(carries))),
  }
}
