/**
 * React hook of the Sync section's own repository: the settings and status as the host last answered them (read when
 * shown and taken from each action's answer), the form's remote and branch, and the actions (save, sync now) through
 * the sync routes. An action whose answer carries a failed try shows no confirmation: the status says what failed.
 * It never renders.
 */
import { useCallback, useEffect, useState } from 'react'
import { useApi } from '../data/api.ts'
import type { Outcome } from '../common/Outcome.tsx'
import { describeError } from '../common/feedback.ts'
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
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)

  const take = useCallback((r: SyncReply) => {
    setReply(r)
    setRemote(r.settings?.remote ?? '')
    setBranch(r.settings?.branch ?? DEFAULT_BRANCH)
  }, [])
  useEffect(() => {
    client.sync().then(take, (e: unknown) => setOutcome({ kind: 'error', text: describeError(t, e) }))
  }, [client, take, t])

  const act = async (job: () => Promise<SyncReply>, done: string) => {
    setBusy(true)
    setOutcome(null)
    try {
      const r = await job()
      take(r)
      setOutcome(r.status.error === undefined ? { kind: 'ok', text: done } : null)
    } catch (e) {
      setOutcome({ kind: 'error', text: describeError(t, e) })
    } finally {
      setBusy(false)
    }
  }

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
