/**
 * Host half entry: wiring only. (Foundation placeholder: one global section proving the plugin reaches the model;
 * the real parts are wired in as they land.)
 */
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-system-prompt'
import { resolveConfig } from './config.ts'

export const name = 'dsh-agent-profiles'

export function apply(ctx: Context, raw: unknown): void {
  resolveConfig(raw)
  const prompt = ctx.get('systemPrompt')
  if (!prompt) {
    ctx.logger('agent-profiles').warn('systemPrompt service missing: profiles are not injected')
    return
  }
  ctx.effect(() => prompt.section({ name: 'agent-profiles:persona', order: 20, text: () => '【智能体配置】占位段落' }))
}
