/**
 * React hook of the suggestions the user ticked in one list ({@link Suggestions}) and of deciding them together: one
 * `memory.decide` command approving or dismissing every ticked one, which the host applies all or nothing. Ticks of
 * suggestions that left the list (decided elsewhere, undone) are forgotten. It never renders.
 */
import { useState } from 'react'
import type { MemoryItem } from '../../state/model.ts'
import type { MemoryTarget } from '../../shared/memory-target.ts'
import { useApi } from '../data/api.ts'
import { useAction, type Action } from './use-action.ts'

/** The ticks of one list's suggestions and the bulk decision. */
export interface SuggestionPicks extends Pick<Action, 'busy' | 'outcome'> {
  /** The ids ticked, among the suggestions shown. */
  picked: readonly string[]
  isPicked(id: string): boolean
  /** Tick or untick one suggestion. */
  toggle(id: string): void
  /** Tick every suggestion shown, or none when all are ticked. */
  toggleAll(): void
  /** Approve (or dismiss) every ticked suggestion in one command. */
  decide(approve: boolean): Promise<void>
}

/** The ticks over `pending`, the suggestions of `target`'s list as shown now. */
export function useSuggestionPicks(
  target: MemoryTarget,
  pending: readonly MemoryItem[],
  sessionId: string | undefined,
): SuggestionPicks {
  const client = useApi()
  const { busy, outcome, run } = useAction()
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set())
  const picked = pending.filter((it) => ticked.has(it.id)).map((it) => it.id)
  const toggle = (id: string): void => {
    setTicked((was) => {
      const next = new Set(was)
      if (!next.delete(id)) next.add(id)
      return next
    })
  }
  const toggleAll = (): void => {
    setTicked(picked.length === pending.length ? new Set() : new Set(pending.map((it) => it.id)))
  }
  // Says nothing on success: the decided suggestions leave the list, which is the answer.
  const decide = (approve: boolean): Promise<void> =>
    run(async () => {
      await client.command('memory.decide', {
        target,
        verdict: approve ? 'approve' : 'dismiss',
        itemIds: picked,
        ...(sessionId === undefined ? {} : { sessionId }),
      })
      setTicked(new Set())
    })
  return { picked, isPicked: (id) => ticked.has(id), toggle, toggleAll, decide, busy, outcome }
}
