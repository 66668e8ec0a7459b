/**
 * React hook of the learning run: where it stands (asked when the section opens, then every second while it runs:
 * the push channel says the memory changed, not how far a run is), starting it from the pick, pausing, resuming and
 * canceling it, and undoing what it brought (`memory.unlearn` with the run's id). It never runs the learning: the
 * host does, in the background.
 */
import { useEffect, useState } from 'react'
import type { LearnPick, LearnRunStatus } from '../../../shared/learn.ts'
import { useApi } from '../../data/api.ts'
import { useAction, type Action } from '../../common/use-action.ts'
import { noticeText } from '../../common/feedback.ts'
import { useT } from '../../copy/locales.ts'

/** How often a running run's progress is asked for. */
const RUN_POLL_MS = 1000

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
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      const next = await client.call('learn.run').catch(() => undefined)
      if (!live) return
      if (next !== undefined) setRun(next.run)
      // Asked again only while it runs (a host restarting, say, answers nothing: asked again later).
      if (next === undefined || next.run?.state === 'running') timer = setTimeout(() => void tick(), RUN_POLL_MS)
    }
    void tick()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [client, running])

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
