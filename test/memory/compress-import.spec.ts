/**
 * A profile a background import is still filling is not compressed while its batches arrive (every batch would change
 * the memory before the model's answer could be stored, so each call would be wasted): it is compressed once, after
 * its last batch is in.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import { installMemoryCompress } from '../../lib/memory/compress.ts'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import type { CompressStatus } from '../../lib/shared/diagnostics.ts'
import { boot, settle, type Harness } from '../support/memory-harness.ts'

let h: Harness
let job: { status(): CompressStatus }

beforeEach(async () => {
  h = await boot({ memory: { compressAt: 500 } })
  await h.ctx.plugin({
    name: 'ap-memory-compress',
    apply: (ctx: Context) => {
      job = installMemoryCompress(ctx, h.store, h.config, h.log)
    },
  })
  // A conversation that has talked to the model: the imported profile is pinned to it once it arrives, so that its
  // compression knows which model to ask.
  await h.turn(await h.conversation('s-import'), '你好')
})
afterEach(async () => {
  await h.close()
})

const ANSWER = '摘要：用户导入了很多关于工具链的记忆。\n- 看重构建速度'

it('a profile an import is filling is compressed once, after its last batch, not while its batches arrive', async () => {
  h.model.script('compress', { text: ANSWER })
  const items = Array.from({ length: 400 }, (_, i) => ({
    id: `m${i}`,
    text: `导入事实${i}：用户在第${i}个项目里用过这套工具链，并且对它的构建速度印象深刻，希望以后继续使用`,
  }))
  const envelope = {
    format: 'dsh-agent-profiles',
    version: 1,
    profiles: [{ id: 'big', name: '导入的大配置', memory: { summary: '', items } }],
  }
  const file = { name: 'mine.json', format: 'envelope', text: JSON.stringify(envelope), own: true } as const
  let n = 0
  const read = readParsedFile(file, 0, { now: Date.now(), newId: (prefix: string) => `${prefix}-t${n++}` })
  const off = h.store.onChange((state) => {
    if (!state.profiles.some((p) => p.id === 'big')) return
    off()
    void h.store.command({ op: 'session.set', sessionId: 's-import', patch: { profileId: 'big' } })
  })
  const own = new OwnImports(h.store)
  own.start({ read, choice: { conflicts: 'keep-both', replace: new Set<string>() } })
  const status = await own.settled()
  expect(status).toMatchObject({ state: 'done', done: status.total })
  const imported = () => h.model.of('compress').filter((r) => r.prompt.includes('导入事实'))
  // Nothing was sent while the batches arrived.
  expect(imported()).toHaveLength(0)
  for (let i = 0; i < 500 && job.status().totals.runs < 1; i++) await settle(10)
  expect(job.status().runs).toMatchObject([{ outcome: 'stored' }])
  expect(imported()).toHaveLength(1)
})
