/**
 * The order a memory list is shown in, unfiltered or filtered without ranking: newest first (what the user saved last
 * is what they look for first), an earlier place in the list breaking a tie. The search route orders its windows so
 * (lib/memory/list.ts), and the page orders a list it holds whole the same way (the user layer from its reply, a
 * profile without an archive), so it shows that list without asking the route for it. Pure; it never changes a list.
 */
import type { MemoryItem } from '../state/model.ts'

/** `list` newest first; of two items saved at the same time, the later in `list` first. */
export function newestFirst(list: readonly MemoryItem[]): MemoryItem[] {
  return list
    .map((it, i) => ({ it, i }))
    .sort((a, b) => b.it.at - a.it.at || b.i - a.i)
    .map(({ it }) => it)
}
