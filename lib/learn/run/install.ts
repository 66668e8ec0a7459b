/**
 * The learning run's part: a runner over the store's data, its calls sent through the host's model service with the
 * background job's bounds (thinking off, the extraction's output cap, the configured deadline), a run a stopped dsh
 * left going resumed once the part is up, and the call out abandoned when the part goes (the run then waits on disk
 * to resume). Owns this wiring only; the run is runner.ts's.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Config } from '../../config/config.ts'
import { EXTRACTION_SYSTEM } from '../../memory/job.ts'
import { callModel, defaultRoute } from '../../memory/model-call.ts'
import type { Log } from '../../shared/log.ts'
import type { ProfileStore } from '../../store/store.ts'
import { ANSWER_TOKENS } from './plan.ts'
import { runFiles } from '../../store/learn-run-file.ts'
import { LearnRunner } from './runner.ts'

/** No turns followed (a host without conversations, as the settings page's specs mount it): nothing to wait for. */
const NO_TURNS = { settled: async () => undefined }

/**
 * Install the learning run on `ctx` (which has the host's `llm`), its calls sent between the turns `turns` follows
 * (lib/sync/turn-quiet.ts); the routes reach it through the returned runner.
 */
export function installLearn(
  ctx: Context,
  store: ProfileStore,
  config: Config,
  log: Log,
  turns: { settled(maxMs?: number, signal?: AbortSignal): Promise<void> } = NO_TURNS,
): LearnRunner {
  const runner = new LearnRunner({
    store,
    log,
    quiet: (signal) => turns.settled(undefined, signal),
    files: runFiles(store.file),
    excerptChars: config.memory.excerptChars,
    defaultRoute: () => defaultRoute(ctx),
    ask: async (route, prompt, signal) =>
      (
        await callModel(ctx, {
          route,
          system: EXTRACTION_SYSTEM,
          prompt,
          maxTokens: ANSWER_TOKENS,
          timeoutMs: config.memory.timeoutMs,
          signal,
        })
      ).text,
  })
  void runner
    .load()
    .catch((error: unknown) => log.warn(`agent-profiles: learn: the kept run was not read: ${String(error)}`))
  ctx.effect(() => () => void runner.close(), 'agent-profiles: learning run')
  return runner
}
