/**
 * Forgetting conversations the host no longer has: their settings and their turn-ledger rows go, so a user's second
 * year does not fill the store with conversations long deleted. Owns only the decision which ones; the store does the
 * forgetting (`sessions.forget`). It never touches the host's sessions.
 *
 * Which conversations exist is the host's session persistence's word (`sessionPersistence.list()`: every persisted
 * session, archived ones included, since archiving keeps a session) plus the live sessions (`sessions.list()`: a new
 * conversation may not be persisted yet). A listing that fails, or looks partial (empty while the store knows
 * conversations, or less than half the size of the last one), drops nothing. A conversation is forgotten only when two
 * listings `intervalMs` apart (the row config's `sessionCheckMs`) both lack it, so one that is being created, or a listing caught mid-change,
 * never costs a setting.
 */
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-session-persistence'
import type {} from '@deepseek-ai/dsh-session'
import type { PruneStatus } from '../shared/diagnostics.ts'
import type { ProfileStore } from './store.ts'
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'

/** The ids the host has now: persisted (archived included) and live. Throws when the persistence listing fails. */
async function hostSessions(ctx: Context): Promise<Set<string>> {
  const ids = new Set<string>()
  for (const header of await ctx.sessionPersistence.list()) ids.add(String(header.id))
  const live = ctx.get('sessions') as { list?(): Array<{ id?: unknown; header?: { id?: unknown } }> } | undefined
  for (const s of live?.list?.() ?? []) ids.add(String(s.id ?? s.header?.id))
  return ids
}

/** Install the periodic pass on `ctx` (which has `sessionPersistence`). */
export function installSessionPrune(
  ctx: Context,
  store: Pick<ProfileStore, 'command' | 'conversationIds' | 'readOnly'>,
  intervalMs: number,
  log: Pick<Log, 'warn'>,
): { status(): PruneStatus; run(): Promise<void> } {
  const status: PruneStatus = { lastRun: null, pending: 0, forgotten: 0, skipped: null }
  let missing = new Set<string>()
  let lastSize = 0
  let running = false

  const run = async (): Promise<void> => {
    if (running) return
    // Data this version may not write (a newer version made it): there is nothing it could forget.
    const readOnly = store.readOnly
    if (readOnly !== undefined) {
      status.skipped = `nothing is forgotten: ${readOnly.message}`
      return
    }
    running = true
    try {
      const known = await hostSessions(ctx)
      const ours = store.conversationIds()
      status.lastRun = Date.now()
      if ((known.size === 0 && ours.length > 0) || known.size < lastSize / 2) {
        status.skipped = `the host listed ${known.size} sessions (${lastSize} before): it looks partial, nothing was forgotten`
        missing = new Set()
        return
      }
      lastSize = known.size
      status.skipped = null
      const now = new Set(ours.filter((id) => !known.has(id)))
      const gone = [...now].filter((id) => missing.has(id))
      missing = new Set([...now].filter((id) => !missing.has(id)))
      status.pending = missing.size
      if (gone.length === 0) return
      await store.command({ op: 'sessions.forget', sessionIds: gone })
      status.forgotten += gone.length
    } catch (e) {
      // A failing listing must never read as "every conversation is gone".
      status.skipped = `listing the host's sessions failed (${errorText(e)}): nothing was forgotten`
      missing = new Set()
      log.warn(`agent-profiles: ${status.skipped}`)
    } finally {
      running = false
    }
  }

  ctx.effect(() => {
    const timer = setInterval(() => {
      void run()
    }, intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }, 'agent-profiles: session prune')
  return { status: () => ({ ...status }), run }
}
