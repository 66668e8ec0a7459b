/**
 * React hook of the Sync section's own repository: the settings and status as the host last answered them (read when
 * shown and taken from each action's answer), the form's remote and branch, and the actions (save, sync now) through
 * the sync routes, busy and worded through the shared {@link useAction}. An action whose answer carries a failed try
 * shows no confirmation: the status says what failed. It never renders.
 */
import { useCallback, useEffect, useState } from 'react'
import { useApi } from '../data/api.ts'
import type { Outcome } from '../common/Outcome.tsx'
import { useAction } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'
import { DEFAULT_BRANCH, type SyncReply } from '../../shared/sync.ts'

/** What {@link useSyncSettings} gives the section. */
export interface SyncSettingsState {
  /** The last answer; null until the first read. */
  reply: SyncReply | null
  remote: string
  branch: string
  setRemote(v: string): void
  setBranch(v: string): void
  busy: boolean
  outcome: Outcome | null
  /** Save the form's remote and branch (an empty remote turns sync off). */
  save(): void
  /** Sync now. */
  syncNow(): void
}

/** The sync settings, status, form and actions. */
export function useSyncSettings(): SyncSettingsState {
  const t = useT()
  const client = useApi()
  const [reply, setReply] = useState<SyncReply | null>(null)
  const [remote, setRemote] = useState('')
  const [branch, setBranch] = useState(DEFAULT_BRANCH)
  const { busy, outcome, run, fail } = useAction()

  const take = useCallback((r: SyncReply) => {
    setReply(r)
    setRemote(r.settings?.remote ?? '')
    setBranch(r.settings?.branch ?? DEFAULT_BRANCH)
  }, [])
  useEffect(() => {
    client.sync().then(take, fail)
  }, [client, take, fail])

  const act = (job: () => Promise<SyncReply>, done: string): Promise<void> =>
    run(async () => {
      const r = await job()
      take(r)
      return r.status.error === undefined ? done : ''
    })

  return {
    reply,
    remote,
    branch,
    setRemote,
    setBranch,
    busy,
    outcome,
    save: () => void act(() => client.configureSync({ remote, branch }), t('sync.saved')),
    syncNow: () => void act(() => client.syncNow(), t('sync.done')),
  }
}
