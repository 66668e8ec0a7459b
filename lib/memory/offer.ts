/**
 * Offering a tool to every top-level conversation: registered in each agent's own scope as it comes (and for those
 * already there), withdrawn as it goes, all withdrawn when the part unloads. Subagents, whose session is not the
 * user's conversation, are never offered one. Owns only that bookkeeping; the tools say what they do.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent, AgentRegistry } from '@deepseek-ai/dsh-agent'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'

/** Offer `definition` to every top-level conversation of `agents`; returns how many it is offered in right now. */
export function offerToConversations(
  ctx: Context,
  agents: AgentRegistry,
  definition: ToolDefinition,
  log: Pick<Log, 'warn'>,
): { offeredIn(): number } {
  const registered = new Map<Agent, () => void>()
  const offer = (agent: Agent) => {
    if (registered.has(agent) || agent.session.header.origin === 'subagent') return
    try {
      registered.set(agent, agent.ctx.tools.register(definition))
    } catch (e) {
      log.warn(`agent-profiles: ${definition.name} not offered in ${agent.id}: ${errorText(e)}`)
    }
  }
  const withdraw = (agent: Agent) => {
    const dispose = registered.get(agent)
    registered.delete(agent)
    try {
      dispose?.()
    } catch {
      /* the agent scope is already gone */
    }
  }
  for (const agent of agents.list()) offer(agent)
  ctx.on('agent/created', ({ agent }) => offer(agent))
  ctx.on('agent/disposed', ({ agent }) => withdraw(agent))
  ctx.effect(() => () => {
    for (const agent of [...registered.keys()]) withdraw(agent)
  })
  return { offeredIn: () => registered.size }
}
