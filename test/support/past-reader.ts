/**
 * The host's live sessions as the learning's past-conversations source reads them (the session query's
 * `listSessions` and `readSession`, over `ctx.sessions`), for the specs that run real conversations on the in-process
 * spine, which mounts no session query of its own.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { PastSessionReader } from '../../lib/learn/past-sessions.ts'

/** The host's live sessions, listed and read with their real headers and events. */
export function liveReader(c: Context): PastSessionReader {
  return {
    listSessions: async () => c.sessions.list().map((s) => ({ header: s.header })),
    readSession: async (id) => {
      const s = c.sessions.get(id)
      if (s === undefined) throw new Error(`no session ${id}`)
      return { session: s.header, events: [...s.events] }
    },
  }
}
