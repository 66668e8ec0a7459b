// Whether a provider lacks its API key, read as the host's Models page reads it: the host's real llm runtime with its
// two real adapters (DeepSeek, whose settings default the key reference to DEEPSEEK_API_KEY, and pi-ai, whose
// providers name theirs or none), a settings service and a credentials service built on the host's own base classes
// with their storage in memory (the file-backed ones read the machine's home and environment).
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime from '@deepseek-ai/dsh-llm'
import * as DeepSeek from '@deepseek-ai/dsh-llm-deepseek'
import * as PiAi from '@deepseek-ai/dsh-llm-pi-ai'
import { SettingsProvider, type SettingsNamespace } from '@deepseek-ai/dsh-settings'
import { CredentialProvider, type CredentialRef } from '@deepseek-ai/dsh-credentials'
import { missingKey, type KeyHost } from '../../lib/prompt/model-key.ts'

class MemorySettings extends SettingsProvider {
  readonly writable = true
  protected async load(): Promise<Record<string, unknown>> {
    return {}
  }
  protected async persist(_ns: SettingsNamespace, _section: Record<string, unknown>): Promise<void> {}
}

class MemoryCredentials extends CredentialProvider {
  readonly values = new Map<string, string>()
  async resolve(ref: CredentialRef) {
    const value = this.values.get(ref)
    return value === undefined ? undefined : { value, source: 'file' as const }
  }
  async describe(ref: CredentialRef) {
    return { configured: this.values.has(ref), writable: true }
  }
  async set(ref: CredentialRef, value: string) {
    this.values.set(ref, value)
  }
  async unset(ref: CredentialRef) {
    this.values.delete(ref)
  }
}

const contexts: Context[] = []
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.fiber.dispose()
})

async function host(): Promise<{ keys: KeyHost; credentials: MemoryCredentials; ctx: Context }> {
  const ctx = new Context()
  contexts.push(ctx)
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(MemorySettings)
  await ctx.plugin(MemoryCredentials)
  await ctx.plugin(DeepSeek)
  await ctx.plugin(PiAi, {
    providers: {
      'keyed-b': {
        displayName: 'Keyed B',
        apiKeyEnv: 'AP_KEYED_B',
        api: 'openai-completions',
        baseURL: 'http://127.0.0.1:9',
        models: [{ id: 'b-large' }],
      },
      'open-c': {
        displayName: 'Open C',
        api: 'openai-completions',
        baseURL: 'http://127.0.0.1:9',
        models: [{ id: 'c-large' }],
      },
    },
  })
  const credentials = ctx.get('credentials') as unknown as MemoryCredentials
  return { ctx, credentials, keys: { llm: ctx.llm, settings: ctx.get('settings'), credentials } }
}

describe('a provider without its API key, known before the call', () => {
  it("names the reference a provider's settings name and no credential source holds, until it is stored", async () => {
    const { keys, credentials } = await host()
    expect(await missingKey(keys, 'deepseek-official')).toBe('DEEPSEEK_API_KEY')
    expect(await missingKey(keys, 'keyed-b')).toBe('AP_KEYED_B')
    await credentials.set('AP_KEYED_B' as CredentialRef, 'k')
    expect(await missingKey(keys, 'keyed-b')).toBeUndefined()
    expect(await missingKey(keys, 'deepseek-official')).toBe('DEEPSEEK_API_KEY')
  })

  it("follows a reference the user renamed in the provider's settings", async () => {
    const { keys, credentials, ctx } = await host()
    await credentials.set('DEEPSEEK_API_KEY' as CredentialRef, 'k')
    expect(await missingKey(keys, 'deepseek-official')).toBeUndefined()
    await ctx.get('settings')!.update('llm-deepseek' as SettingsNamespace, { apiKeyEnv: 'MY_DEEPSEEK' })
    expect(await missingKey(keys, 'deepseek-official')).toBe('MY_DEEPSEEK')
  })

  it('owes nothing for a provider naming no reference, a provider the host cannot configure, or a host it cannot read', async () => {
    const { keys } = await host()
    expect(await missingKey(keys, 'open-c')).toBeUndefined()
    expect(await missingKey(keys, 'nowhere')).toBeUndefined()
    expect(await missingKey({ llm: keys.llm, settings: keys.settings }, 'deepseek-official')).toBeUndefined()
    expect(
      await missingKey(
        { ...keys, credentials: { describe: () => Promise.reject(new Error('down')) } },
        'deepseek-official',
      ),
    ).toBeUndefined()
  })
})
