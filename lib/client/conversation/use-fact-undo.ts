/**
 * React hook of a memory write's row actions ({@link FactUndo}): undo the whole write or one fact of it
 * (`memory.revert`), and approve or reject together the suggestions it left waiting, with one busy state and outcome
 * for all of them ({@link useAction}). A revert that found nothing left to undo is said as a refusal. It never renders.
 */
import type { MemoryItem } from '../../state/model.ts'
import type { MemoryHistoryEntry } from '../../shared/memory-target.ts'
import { useApi } from '../data/api.ts'
import { noticeText, WordedError } from '../common/feedback.ts'
import { revertEntry } from '../common/memory-history.ts'
import { useAction, type Action } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'

/** The row's actions and their shared state. */
export interface FactActions extends Pick<Action, 'busy' | 'outcome'> {
  /** Undo the write, or only the facts `itemIds` names. */
  undo(itemIds?: string[]): Promise<void>
  /** Approve (or reject) every suggestion in `waiting`, in one command. */
  decideAll(waiting: readonly MemoryItem[], approve: boolean): Promise<void>
}

/** The actions of the row of `entry`, done from the conversation `sessionId`. */
export function useFactUndo(entry: MemoryHistoryEntry, sessionId: string): FactActions {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run } = useAction()
  // Says nothing on success (the fact shows struck through); nothing left to undo is worth a word.
  const undo = (itemIds?: string[]): Promise<void> =>
    run(async () => {
      const notice = await revertEntry(client, entry, itemIds === undefined ? { sessionId } : { itemIds, sessionId })
      if (notice.key === 'memory.revertNothing') throw new WordedError(noticeText(t, notice))
    })
  // One command for all of them: the host decides every one or, on a refusal, none.
  const decideAll = (waiting: readonly MemoryItem[], approve: boolean): Promise<void> =>
    run(async () => {
      await client.command('memory.decide', {
        target: entry.target,
        verdict: approve ? 'approve' : 'dismiss',
        itemIds: waiting.map((it) => it.id),
        sessionId,
      })
    })
  return { busy, outcome, undo, decideAll }
}
