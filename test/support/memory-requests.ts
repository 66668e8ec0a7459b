/**
 * What the memory e2e specs share: which kind of request the offline model got (a conversation turn, a title, an
 * extraction, a compression — told by the plugin's own system prompts) and a poll until a probe answers.
 */
import { isTitleRequest, type RecordedRequest } from './model-server.ts'

export type RequestKind = 'turn' | 'title' | 'extract' | 'compress'

export function kindOf(r: RecordedRequest): RequestKind {
  if (r.system.includes('整理出值得长期记住的事实')) return 'extract'
  if (r.system.includes('整理一位助手的长期记忆')) return 'compress'
  return isTitleRequest(r) ? 'title' : 'turn'
}

/** Poll `probe` every 100 ms until it answers; on timeout fail naming `what`, with `detail()` (e.g. the host's output). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, detail: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
