/**
 * React hook of the learning run: where it stands (asked when the section opens, then every second while it runs:
 * the push channel says the memory changed, not how far a run is), starting it from the pick, pausing, resuming and
 * canceling it, and undoing what it brought (`memory.unlearn` with the run's id). A run started elsewhere (another
 * tab, another dsh on the same home) is noticed without reopening the section: it is asked again whenever the
 * store's revision changes (that run's suggestions reach the page through the push channel), and every
 * {@link IDLE_POLL_MS} while the page is shown (a run that found nothing yet changes no revision). It never runs the
 * learning: the host does, in the background.
 */
import { useEffect, useState, useSyncExternalStore } from 'react'
import type { LearnPick, LearnRunStatus } from '../../../shared/learn.ts'
import { useApi } from '../../data/api.ts'
import { useAction, type Action } from '../../common/use-action.ts'
import { noticeText } from '../../common/feedback.ts'
import { useT } from '../../copy/locales.ts'

/** How often a running run's progress is asked for. */
const RUN_POLL_MS = 1000
/** How often the page, while shown, asks whether a run started elsewhere (a small file's read on the host). */
const IDLE_POLL_MS = 15_000

/** Whether the page is shown (a hidden tab asks nothing until it is shown again). */
const shown = (): boolean => typeof document === 'undefined' || document.visibilityState !== 'hidden'

/** The run and what the user may do with it. */
export interface LearnRunState extends Pick<Action, 'busy' | 'outcome'> {
  run: LearnRunStatus | undefined
  start(pick: LearnPick): Promise<void>
  control(action: 'pause' | 'resume' | 'cancel'): Promise<void>
  undo(): Promise<void>
}

/** The section's run over the page's client. */
export function useLearnRun(): LearnRunState {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run: act } = useAction()
  const [run, setRun] = useState<LearnRunStatus | undefined>(undefined)
  const running = run?.state === 'running'
  // The store's revision as the page last heard it: a change made elsewhere (a run's suggestions) re-asks at once.
  const revision = useSyncExternalStore(client.subscribe, () => client.getSnapshot().meta?.revision)
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      const next = await client.call('learn.run').catch(() => undefined)
      if (!live) return
      if (next !== undefined) setRun(next.run)
      // Every second while it runs (a host restarting, say, answers nothing: asked again then too), else slowly.
      const fast = next === undefined || next.run?.state === 'running'
      timer = setTimeout(() => void (fast || shown() ? tick() : wait()), fast ? RUN_POLL_MS : IDLE_POLL_MS)
    }
    // A hidden page asks again once it is shown.
    const wait = () => document.addEventListener('visibilitychange', onShown)
    const onShown = () => {
      if (!shown()) return
      document.removeEventListener('visibilitychange', onShown)
      void tick()
    }
    void tick()
    return () => {
      live = false
      clearTimeout(timer)
      if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', onShown)
    }
  }, [client, running, revision])

  const start = (pick: LearnPick) =>
    act(async () => {
      setRun((await client.call('learn.start', { body: pick })).run)
      return ''
    })
  const control = (action: 'pause' | 'resume' | 'cancel') =>
    act(async () => {
      setRun((await client.call('learn.control', { body: { action } })).run)
      return ''
    })
  const undo = () =>
    act(async () => {
      if (run === undefined) return ''
      const reply = await client.command('memory.unlearn', { target: run.into, importId: run.id })
      return noticeText(t, reply.notice)
    })
  return { busy, outcome, run, start, control, undo }
}
