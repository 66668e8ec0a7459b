/**
 * The real dsh spine in process with the plugin's speaker parts (speakers, prompt, tool profiles, memory_save) and
 * three host tools (`read`, `write`, `bash`) that record each run: what the speaker specs talk to.
 */
import type { Context } from '@deepseek-ai/cordis'
import { createSpeakers, installSpeakers } from '../../lib/prompt/speakers-install.ts'
import { createTurnReader } from '../../lib/turn/reader.ts'
import { installPrompt } from '../../lib/prompt/install.ts'
import { installToolProfiles } from '../../lib/tools/install.ts'
import { installMemoryTool } from '../../lib/memory/tool.ts'
import { boot, type Harness } from './memory-harness.ts'
import { hostTool } from './spine.ts'

/** A harness with the speaker parts; the host tools push their name to `ran` when they run. */
export async function bootSpeakers(ran: string[]): Promise<Harness> {
  const h = await boot()
  for (const name of ['read', 'write', 'bash']) h.ctx.tools.register(hostTool(name, ran))
  const speakers = createSpeakers(h.store)
  const reader = createTurnReader(h.store, speakers)
  await h.ctx.plugin({
    name: 'ap-speakers',
    apply: (ctx: Context) => {
      installSpeakers(ctx, h.store, speakers, h.log)
      installPrompt(ctx, h.store, h.config, h.log, { speakers, turns: reader })
      installToolProfiles(ctx, h.store, h.config, h.log, reader)
      installMemoryTool(ctx, h.store, h.config, h.log, reader)
    },
  })
  return h
}
