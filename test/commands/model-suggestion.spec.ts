/**
 * A model that arrives in a file is the user's to accept: a Markdown `model:` line or an envelope's model (with its
 * effort and temperature) is held as the profile's suggestion, said in the import report, and becomes the profile's
 * model only on the user's Accept; Dismiss drops it and keeps the model. Through the real store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { textFile } from '../support/hostile-files.ts'
import { expectRefused, freshStore, importFilesInto } from '../support/store-helpers.ts'

let store: ProfileStore
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
})
afterEach(async () => {
  await dispose()
})

const importFiles = (...files: ImportFile[]) => importFilesInto(store, ...files)
const byName = (name: string) => store.state.profiles.find((p) => p.name === name)!
const PRO = { provider: 'deepseek', model: 'DeepSeek-V4-Pro', reasoningEffort: 'max', temperature: 2 }

describe('a model that arrives in a file', () => {
  it("from a Markdown file's model: line is a suggestion, said in the report, never the profile's model", async () => {
    const r = await importFiles(
      textFile('reviewer.md', '---\nname: 审阅\nmodel: deepseek/DeepSeek-V4-Pro\n---\n## 身份\n审阅代码\n'),
    )
    const p = byName('审阅')
    expect(p.model).toBeUndefined()
    expect(p.suggestedModel).toEqual({ provider: 'deepseek', model: 'DeepSeek-V4-Pro' })
    expect(r.files[0]!.warnings).toContainEqual({
      key: 'modelSuggested',
      params: { name: '审阅', value: 'deepseek/DeepSeek-V4-Pro', effort: '—', temperature: '—' },
    })
  })

  it('from an envelope, with its effort and temperature, is a suggestion too', async () => {
    const envelope = JSON.stringify({
      format: 'dsh-agent-profiles',
      version: 1,
      profiles: [{ id: 'hot', name: '热', model: PRO }],
    })
    const r = await importFiles(textFile('hot.json', envelope, 'envelope'))
    expect(byName('热').model).toBeUndefined()
    expect(byName('热').suggestedModel).toEqual(PRO)
    expect(r.files[0]!.warnings.map((w) => w.key)).toContain('modelSuggested')
    // Through state.import as well, merge or replace: a file is a file.
    await store.command({ op: 'state.import', mode: 'replace', payload: JSON.parse(envelope) } as unknown as Command)
    expect(store.state.profiles.map((p) => [p.model, p.suggestedModel])).toEqual([[undefined, PRO]])
  })

  it("becomes the profile's model only when the user accepts it; dismissed, it is gone and the model stays", async () => {
    await importFiles(textFile('a.md', '---\nname: 甲\nmodel: deepseek/DeepSeek-V4-Pro\n---\n## 身份\n甲\n'))
    await importFiles(textFile('b.md', '---\nname: 乙\nmodel: deepseek/DeepSeek-V4-Pro\n---\n## 身份\n乙\n'))
    const a = byName('甲')
    await store.command({ op: 'profile.update', id: a.id, patch: {}, suggestion: 'accept' } as unknown as Command)
    expect(byName('甲').model).toEqual({ provider: 'deepseek', model: 'DeepSeek-V4-Pro' })
    expect(byName('甲').suggestedModel).toBeUndefined()
    const b = byName('乙')
    await store.command({ op: 'profile.update', id: b.id, patch: {}, suggestion: 'dismiss' } as unknown as Command)
    expect(byName('乙').model).toBeUndefined()
    expect(byName('乙').suggestedModel).toBeUndefined()
    await expectRefused(
      store,
      { op: 'profile.update', id: b.id, patch: {}, suggestion: 'accept' },
      { code: 'invalid', field: 'suggestion' },
    )
  })
})
