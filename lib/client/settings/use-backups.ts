/**
 * React hook of the "Restore a backup" section's state: the store's backups as the host lists them (read when shown
 * and again after each restore), the one picked, and the restore itself with its busy state and outcome
 * ({@link useAction}). It asks nothing of the user (the section confirms before it calls `restore`) and never renders.
 */
import { useCallback, useEffect, useState } from 'react'
import type { BackupInfo } from '../../shared/wire-replies.ts'
import { useApi } from '../data/api.ts'
import { useAction, type Action } from '../common/use-action.ts'

/** The section's backups, the pick and the restore. */
export interface Backups extends Pick<Action, 'busy' | 'outcome'> {
  /** The backups, newest first; null until first read (an empty list when that read failed). */
  backups: BackupInfo[] | null
  /** The picked backup's name ('' when there is none). */
  chosen: string
  /** Pick another backup: what the last restore said is about another one, so it goes. */
  choose(name: string): void
  /** Restore `backup`, then read the list again; `words` is what the section says once it is done. */
  restore(backup: BackupInfo, words: string, onRestored?: () => void): Promise<void>
}

/** The section's state. */
export function useBackups(): Backups {
  const client = useApi()
  const { busy, outcome, run, fail, clear } = useAction()
  const [backups, setBackups] = useState<BackupInfo[] | null>(null)
  const [chosen, setChosen] = useState('')

  const load = useCallback(async () => {
    try {
      const list = await client.backups()
      setBackups(list)
      setChosen((c) => (list.some((b) => b.name === c) ? c : (list[0]?.name ?? '')))
    } catch (e) {
      setBackups([])
      fail(e)
    }
  }, [client, fail])
  useEffect(() => {
    void load()
  }, [load])

  const choose = (name: string): void => {
    setChosen(name)
    clear()
  }
  const restore = (backup: BackupInfo, words: string, onRestored?: () => void): Promise<void> =>
    run(async () => {
      await client.restoreBackup(backup.name)
      onRestored?.()
      await load()
      return words
    })
  return { backups, chosen, choose, restore, busy, outcome }
}
