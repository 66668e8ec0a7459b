/**
 * A model that arrives in a file, through the real `dsh web` and the offline model: a Markdown file whose front
 * matter names the pro model at temperature-free defaults is imported, and the conversation pinned to the imported
 * profile still answers on the model it answered on before (the conversation's, flash) with no temperature from the
 * file; the import report says what the file asked for; only once the user accepts the suggestion does the next turn
 * run on the pro model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FileResult } from '../../lib/shared/import-report.ts'
import { bootEchoing, type Host } from '../support/host-api.ts'
import type { ModelServer } from '../support/model-server.ts'

const PROVIDER = 'deepseek-official'
const FLASH = 'deepseek-v4-flash'
const PRO = 'deepseek-v4-pro'

let model: ModelServer
let host: Host

beforeAll(async () => {
  ;({ model, host } = await bootEchoing())
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

describe('a model named in an imported file (web)', () => {
  it('does not move the conversation to it; accepting it in the Model section does', async () => {
    const md = `---\nname: 外来审阅\nmodel: ${PROVIDER}/${PRO}\n---\n## 身份\n审阅代码\n`
    const reply = await host.command<{ files: FileResult[] }>({
      op: 'profiles.importFiles',
      files: [{ name: 'reviewer.md', format: 'markdown', text: md }],
    })
    expect(reply.files[0]!.warnings).toContainEqual(
      expect.objectContaining({
        key: 'modelSuggested',
        params: expect.objectContaining({ value: `${PROVIDER}/${PRO}` }),
      }),
    )
    const { state } = await host.read()
    const imported = state.profiles.find((p) => p.name === '外来审阅')!
    const sessionId = await host.conversation()
    const [before] = await host.say(sessionId, 'BEFORE-PIN')
    expect(before!.model).toBe(FLASH)
    await host.command({ op: 'session.set', sessionId, patch: { profileId: imported.id } })
    const [next] = await host.say(sessionId, 'AFTER-IMPORT')
    expect(next!.system).toContain('审阅代码')
    expect(next!.model).toBe(FLASH)
    await host.command({ op: 'profile.update', id: imported.id, patch: {}, suggestion: 'accept' })
    const [accepted] = await host.say(sessionId, 'AFTER-ACCEPT')
    expect(accepted!.model).toBe(PRO)
  })
})
