/** The tests' handle on the project's offline model (lib/offline-model), which they script and whose requests they read. */
export * from '../../lib/offline-model/server.ts'

import { isTitleRequest, type Responder } from '../../lib/offline-model/server.ts'

/** A responder for a model that saves `facts` with `memory_save` in its first step and then answers "好的". */
export function savesMemory(facts: string[]): Responder {
  return (r) => {
    if (isTitleRequest(r)) return undefined
    return r.messages.some((m) => m.role === 'tool')
      ? { text: '好的' }
      : { toolCalls: [{ name: 'memory_save', arguments: { facts } }] }
  }
}
