/**
 * The reader of past conversations the learning uses over the real host: the session query (`ctx.sessionQuery`)
 * lists them, and each is read through the host's session persistence (`ctx.sessionPersistence.inspect`, which finds
 * one kept log by its id and answers the live session itself for one that is open) while that service is mounted,
 * else through the query's `readSession`. Why not the query's read alone: it lists every kept session again (reading
 * each log's first line from disk) for each session it reads, so reading N kept sessions read N² log heads inside one
 * request (100 kept sessions took 14.5 s, 3,000 would take hours); the persistence's `inspect` is what that read
 * does after its listing, with the same validation of the log. It never writes anything and never keeps a log.
 */
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session'
import type { PastSessionReader } from './past-sessions.ts'

/** What the reader needs of the host's session persistence (`ctx.sessionPersistence`). */
export interface KeptSessions {
  inspect(id: SessionHeader['id']): Promise<{ readonly meta: SessionHeader; readonly events: readonly SessionEvent[] }>
}

/** Past conversations listed by `query` and read through `kept()` when it is there (see the module's header). */
export function pastReader(query: PastSessionReader, kept: () => KeptSessions | undefined): PastSessionReader {
  return {
    listSessions: (signal) => query.listSessions(signal),
    readSession: async (id) => {
      const persistence = kept()
      if (persistence === undefined) return await query.readSession(id)
      const { meta, events } = await persistence.inspect(id)
      return { session: meta, events }
    },
  }
}
