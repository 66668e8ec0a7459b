// A card's lorebook on the real dsh spine in process: imported through the real store's `profiles.importFiles`, its
// always-on entry in the system prompt, its keyed entries in the archive, out of the prompt until a message names
// one of their keys, and then recalled into that turn (the plugin's prompt and recall parts wired as lib/index.ts
// wires them, against a scripted model that records every request).
import { afterEach, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import type { FileResult } from '../../lib/shared/import-report.ts'
import { installPrompt } from '../../lib/prompt/install.ts'
import { installRecall } from '../../lib/memory/recall-install.ts'
import { TurnRecords } from '../../lib/turn/record.ts'
import type { Command } from '../../lib/store/store.ts'
import { richV2 } from '../support/card-fixtures.ts'
import { boot, type Harness } from '../support/memory-harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** The runtime-context messages a request carried. */
const contexts = (o: GenerateOptions): string[] =>
  o.messages
    .filter((m) => m.role === 'user' && m.source.kind === 'plugin')
    .map((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''))

it('a lorebook entry reaches the model only in the turn whose message names one of its keys', async () => {
  h = await boot()
  const harness = h
  await harness.ctx.plugin({
    name: 'agent-profiles-lore-recall-spec',
    apply: (c: Context) => {
      const records = new TurnRecords()
      const p = installPrompt(c, harness.store, harness.config, harness.log, { records })
      installRecall(c, harness.store, harness.config, harness.log, (agent) => p.core(agent), records)
    },
  })
  const card = richV2()
  card.data.character_book.entries = [
    {
      keys: [],
      content: '{{char}} never lies to {{user}}.',
      constant: true,
      enabled: true,
      insertion_order: 0,
      extensions: {},
    },
    {
      keys: ['Moonwell'],
      content: 'Its water heals any wound at midnight.',
      enabled: true,
      insertion_order: 1,
      extensions: {},
    },
    {
      keys: ['Ignis'],
      content: 'A red dragon sleeps under the northern mountain.',
      enabled: true,
      insertion_order: 2,
      extensions: {},
    },
    // A lorebook's worth of other entries: relevance is measured against the rest of the archive, as in a real book.
    ...Array.from({ length: 60 }, (_, i) => ({
      keys: [`village${i}`],
      content: `Village ${i} trades wool and barley at the autumn market.`,
      enabled: true,
      insertion_order: 3 + i,
      extensions: {},
    })),
  ]
  const reply = (await h.store.command({
    op: 'profiles.importFiles',
    files: [{ name: 'sera.json', format: 'card', text: JSON.stringify(card) }],
  } as unknown as Command)) as unknown as { files: FileResult[] }
  await h.store.command({ op: 'profile.activate', id: reply.files[0]!.profileIds[0]! })
  const agent = await h.conversation('sess-lore-1')
  await h.turn(agent, 'Good morning, how are you today?')
  await h.turn(agent, 'Tell me about the Moonwell.')
  const [first, second] = h.model.of('turn').map((s) => s.options)
  for (const t of [first!, second!]) {
    expect(t.system).toContain('Seraphina never lies to the user.')
    expect(t.system).not.toContain('heals any wound')
    expect(t.system).not.toContain('red dragon')
  }
  expect(contexts(first!).join('\n')).not.toContain('heals any wound')
  const recalled = contexts(second!).join('\n')
  expect(recalled).toContain('Its water heals any wound at midnight.')
  expect(recalled).not.toContain('red dragon')
})
