/**
 * Host half entry: wiring only. Reads the row config, opens the store, and installs each part when the host services
 * it needs are up — prompt injection, the memory tool, the background memory jobs, skills, tool profiles, the HTTP
 * routes. A part whose services never arrive is reported once and the rest keep working. Holds no business rules.
 */
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '@deepseek-ai/dsh-llm'
import type {} from '@deepseek-ai/dsh-host-webserver'
import type {} from '@deepseek-ai/dsh-session-persistence'
import type {} from '@deepseek-ai/dsh-session-query'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { resolveConfig, type Config } from './config/config.ts'
import type { Meta, PartDiagnostics } from './shared/meta.ts'
import type { ConfigRefusal } from './shared/reasons.ts'
import { countsOf, userItemsOf } from './state/model.ts'
import { installMemoryCompress } from './memory/compress.ts'
import { installMemoryJob } from './memory/job.ts'
import { installMemoryTool } from './memory/tool.ts'
import { installSearchTool } from './memory/search-tool.ts'
import { renderProfile } from './prompt/render.ts'
import { installPrompt } from './prompt/install.ts'
import { installModelChoice, type ModelChoiceApi } from './prompt/model-choice.ts'
import { createSpeakers, installSpeakers, type Speakers } from './prompt/speakers-install.ts'
import { createTurnReader, type TurnReader } from './turn/reader.ts'
import { TurnRecords } from './turn/record.ts'
import { TurnLedger } from './turn/ledger.ts'
import { TurnQuiet } from './sync/turn-quiet.ts'
import { installRecall } from './memory/recall-install.ts'
import { installRoutes } from './http/routes.ts'
import { installSkills } from './prompt/skills.ts'
import { installSessionPrune } from './store/session-prune.ts'
import { defaultDataFile, type ProfileStore } from './store/store.ts'
import { openStore } from './store/open-store.ts'
import { installToolProfiles } from './tools/install.ts'
import { installSync } from './sync/install.ts'
import { installLearn } from './learn/run/install.ts'
import type { LearnRunner } from './learn/run/runner.ts'
import type { PastSessionReader } from './learn/past-sessions.ts'
import { pastReader, type KeptSessions } from './learn/past-reader.ts'
import type { Log } from './shared/log.ts'
import { ConfigError } from './config/errors.ts'

/** Cordis plugin name; equals the package name, which is how the host finds the browser half. */
export const name = 'dsh-agent-profiles'

/** The Harness home as the host resolves it: `$DSH_HOME` unless blank, else `~/.dsh`. */
function dshHome(): string {
  return process.env.DSH_HOME?.trim() || join(homedir(), '.dsh')
}

/** Each installed part's diagnostics readers, under the `meta` key the browser reads them by. */
type Diagnostics = { [K in keyof PartDiagnostics]?: () => PartDiagnostics[K] }

/**
 * Each part with the host services it cannot work without. A part is installed inside `ctx.inject`, so it starts when
 * those services are active (a soft probe at apply time sees nothing yet) and stops when any of them leaves.
 */
const PARTS: Array<{
  part: string
  needs: string[]
  install(sub: Context, store: ProfileStore, config: Config, log: Log, with_: Shared): Diagnostics
}> = [
  // The parts that act for the profile answering a turn read it from `turns` (lib/turn/reader.ts): the speaker the
  // user named for the turn, else the conversation's own profile. `store.effective()` is always the conversation's.
  {
    part: 'several speakers',
    needs: ['agents'],
    install: (sub, store, _config, log, { speakers }) => {
      installSpeakers(sub, store, speakers, log)
      return {}
    },
  },
  {
    part: 'prompt injection and recall',
    needs: ['systemPrompt', 'agents'],
    install: (sub, store, config, log, { speakers, turns, records }) => {
      // Both write the turn's record (the ledger keeps what recall sent); recall reads what the memory half carries.
      const p = installPrompt(sub, store, config, log, { turns, speakers, records })
      const recall = installRecall(sub, store, config, log, (agent) => p.core(agent), records, turns)
      return { injection: () => p.diagnostics(), recall: () => recall.status() }
    },
  },
  {
    part: 'sync between turns',
    needs: ['agents'],
    install: (sub, _store, _config, _log, { quiet }) => {
      quiet.watch(sub)
      return {}
    },
  },
  {
    part: 'profile models',
    needs: ['llm', 'agents'],
    install: (sub, store, _config, log, { live, turns, records }) => {
      const m = installModelChoice(sub, store, log, turns, records)
      live.models = m
      sub.effect(() => () => {
        if (live.models === m) live.models = undefined
      })
      return { modelChoice: () => m.status() }
    },
  },
  {
    part: 'memory_save and memory_search tools',
    needs: ['tools', 'agents'],
    install: (sub, store, config, log, { turns }) => {
      const t = installMemoryTool(sub, store, config, log, turns)
      const search = installSearchTool(sub, store, log, turns)
      return { memoryTool: () => ({ ...t.status(), searches: search.searches() }) }
    },
  },
  {
    part: 'memory extraction and compression',
    needs: ['llm', 'agents'],
    install: (sub, store, config, log) => {
      const job = installMemoryJob(sub, store, config, log)
      const compress = installMemoryCompress(sub, store, config, log)
      return { memoryJob: () => job.status(), compression: () => compress.status() }
    },
  },
  {
    part: 'learning from another assistant',
    needs: ['llm'],
    install: (sub, store, config, log, { live, quiet }) => {
      live.learn = installLearn(sub, store, config, log, quiet)
      sub.effect(() => () => {
        delete live.learn
      })
      return {}
    },
  },
  {
    part: 'learning from past conversations',
    needs: ['sessionQuery'],
    install: (sub, _store, _config, _log, { live }) => {
      // Each kept session is read through the session persistence while it is mounted (lib/learn/past-reader.ts).
      let kept: KeptSessions | undefined
      const fiber = sub.inject(['sessionPersistence'], (p) => {
        const service = p.sessionPersistence
        kept = service
        p.effect(() => () => {
          if (kept === service) kept = undefined
        })
      })
      sub.effect(() => () => void fiber.dispose())
      const reader = pastReader(sub.sessionQuery, () => kept)
      live.past = reader
      sub.effect(() => () => {
        if (live.past === reader) delete live.past
      })
      return {}
    },
  },
  {
    part: 'profile skills',
    needs: ['skills'],
    install: (sub, store, config, log) => {
      const s = installSkills(sub, store, config, log)
      return { skills: () => s.status() }
    },
  },
  {
    part: 'forgetting deleted conversations',
    needs: ['sessionPersistence'],
    install: (sub, store, config, log) => {
      const p = installSessionPrune(sub, store, config.sessionCheckMs, log)
      return { sessionPrune: () => p.status() }
    },
  },
  {
    part: 'tool profiles',
    needs: ['tools', 'agents'],
    install: (sub, store, config, log, { turns }) => {
      const t = installToolProfiles(sub, store, config, log, turns)
      return { toolProfiles: () => t.status() }
    },
  },
]

/** Parts the routes call into while those parts are installed. */
interface Live {
  models?: ModelChoiceApi
  learn?: LearnRunner
  past?: PastSessionReader
}

/** What every part may share: the parts the routes call into, and who answers each conversation's turn. */
interface Shared {
  live: Live
  speakers: Speakers
  /** Who answers each conversation's running turn, for the parts that act for it. */
  turns: TurnReader
  /** The record of each conversation's running turn, which prompt, recall and the model choice write. */
  records: TurnRecords
  /** The turns under way, which the background sync and the learning run wait for (lib/sync/turn-quiet.ts). */
  quiet: TurnQuiet
}

/** The row config, else (said in the log, and kept for the page) the defaults: a bad one must not take the host down. */
function readConfig(
  raw: unknown,
  log: Log,
): { config: Config; configError: string | null; configRefusal: ConfigRefusal | undefined } {
  try {
    return { config: resolveConfig(raw), configError: null, configRefusal: undefined }
  } catch (error) {
    const configError = (error as Error).message
    log.error(`${configError} — using the default configuration`)
    const configRefusal = error instanceof ConfigError ? error.refusal : undefined
    return { config: resolveConfig({}), configError, configRefusal }
  }
}

/**
 * Say once, after the host finished loading, which parts are off and what the host lacks for them: a part that
 * silently did nothing looks like a bug to the user.
 */
function warnPartsOff(ctx: Context, installed: ReadonlySet<string>, log: Log): void {
  let live = true
  ctx.effect(() => () => {
    live = false
  })
  const loader = ctx.get('loader') as { await?(): Promise<unknown> } | undefined
  void Promise.resolve(loader?.await?.())
    .catch(() => undefined)
    .then(() => {
      for (const { part, needs } of PARTS) {
        if (live && !installed.has(part))
          log.warn(`agent-profiles: ${part} is off — this host lacks ${needs.filter((s) => !ctx.get(s)).join(', ')}`)
      }
    })
}

export async function apply(ctx: Context, raw: unknown): Promise<void> {
  const logger = ctx.logger('agent-profiles')
  const log: Log = { warn: (m) => logger.warn(m), error: (m) => logger.error(m) }
  const { config, configError, configRefusal } = readConfig(raw, log)
  const store = await openStore({ file: config.dataFile ?? defaultDataFile(dshHome()), log, createEarly: true })
  ctx.effect(
    () => () => {
      void store.close()
    },
    'agent-profiles: store',
  )
  if (store.lastError) log.warn(`agent-profiles: ${store.lastError.message}`)

  // The sync runs between turns; the turns are followed once the host's agents are there (a part below).
  const quiet = new TurnQuiet()
  const sync = installSync(store, log, { quiet })
  ctx.effect(
    () => () => {
      void sync.stop()
    },
    'agent-profiles: sync',
  )

  const speakers = createSpeakers(store)
  const turns = createTurnReader(store, speakers)
  const records = new TurnRecords(new TurnLedger(store, log))
  const diagnostics: Diagnostics = {}
  const running: Live = {}
  const installed = new Set<string>()
  for (const { part, needs, install } of PARTS) {
    ctx.inject(needs, (sub) => {
      installed.add(part)
      const d = install(sub, store, config, log, { live: running, speakers, turns, records, quiet })
      Object.assign(diagnostics, d)
      sub.effect(() => () => {
        installed.delete(part)
        for (const key of Object.keys(d) as (keyof Diagnostics)[]) delete diagnostics[key]
      })
    })
  }
  warnPartsOff(ctx, installed, log)

  installRoutes(ctx, {
    store,
    preview: (profile, setting) =>
      renderProfile(profile, setting, {
        memoryBudget: config.memoryBudget,
        user: userItemsOf(store.state),
        recall: config.recallBudget > 0,
      }),
    meta: (): Meta => ({
      dataFile: store.file,
      revision: store.revision,
      counts: countsOf(store.state),
      compressThreshold: config.memory.compressAt,
      memoryBudget: config.memoryBudget,
      lastError: store.lastError,
      data: store.health,
      configError,
      sync: sync.diagnostics(),
      ...(configRefusal === undefined ? {} : { configRefusal }),
      ...(Object.fromEntries(
        Object.entries(diagnostics).map(([key, read]) => [key, read()]),
      ) as Partial<PartDiagnostics>),
    }),
    memoryBudget: config.memoryBudget,
    models: () => running.models,
    sync: () => sync,
    learn: () => running.learn,
    past: () => running.past,
    trustedHosts: () => (ctx.get('webRuntime') as { trustedHosts?: string[] } | undefined)?.trustedHosts ?? [],
    log,
  })
}
