/** The tests' handle on the project's offline model (lib/offline-model), which they script and whose requests they read. */
export * from '../../lib/offline-model/server.ts'

import { isTitleRequest, textOf, type RecordedRequest, type Responder } from '../../lib/offline-model/server.ts'

/** The messages of a request's turn: from its last user message on (the tool calls and results of this turn). */
export function turnOf(r: RecordedRequest): RecordedRequest['messages'] {
  return r.messages.slice(r.lastUserAt)
}

/** The texts of the tool results in a request's turn: what the model was told its tool calls gave (or refused). */
export function turnToolResults(r: RecordedRequest): string[] {
  return turnOf(r)
    .filter((m) => m.role === 'tool')
    .map(textOf)
}

/** A responder for a model that saves `facts` with `memory_save` in its first step and then answers "好的". */
export function savesMemory(facts: string[]): Responder {
  return (r) => {
    if (isTitleRequest(r)) return undefined
    return r.messages.some((m) => m.role === 'tool')
      ? { text: '好的' }
      : { toolCalls: [{ name: 'memory_save', arguments: { facts } }] }
  }
}
