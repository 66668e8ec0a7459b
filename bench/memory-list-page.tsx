/**
 * The page bench/memory-list.bench.ts loads into Chromium: mounts the memory list with N items, either as it is now
 * (MemoryList, reading its rows from a search route answered in the page) or as it was at 1bd9717 (MemoryItems, every
 * item in its draft; the bench bundles that file from git as `before:MemoryItems`), with the plugin's stylesheet, and
 * types into its add box or search box one key at a time, timing each key from the input event to the page laid out
 * again. Bench code only; nothing of the plugin imports it.
 */
import { useState, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
// @ts-expect-error -- resolved by the bench's esbuild plugin to lib/client/common/MemoryItems.tsx as of 1bd9717.
import { MemoryItems as BeforeItems } from 'before:MemoryItems'
import { ApiContext, type ApiClient, type MemoryQuery } from '../lib/client/data/api.ts'
import { NO_EDITS, type MemoryDraft } from '../lib/client/common/memory-draft.ts'
import { MemoryList } from '../lib/client/common/MemoryList.tsx'
import { installStyles } from '../lib/client/styles/styles.ts'
import { MEMORY_SOURCES, type MemoryItem } from '../lib/state/model.ts'

const PLACES = ['杭州', '上海', '北京', '成都', 'Berlin', 'Lisbon', 'Osaka']
const TOPICS = [
  '喜欢简短的回答',
  '在写一本关于海的小说',
  '每周五发版',
  '对花生过敏',
  'prefers tables over prose',
  '用 Go 1.22 写后端',
]

/** `n` memory items of realistic length and mixed provenance, the oldest first as a list holds them. */
function items(n: number): MemoryItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: `用户${TOPICS[i % TOPICS.length]}，住在${PLACES[i % PLACES.length]}（第 ${i} 条）`,
    source: MEMORY_SOURCES[i % MEMORY_SOURCES.length]!,
    at: 1_700_000_000_000 + i * 60_000,
    ...(i % 7 === 0 ? { sessionId: `session-${i.toString(16).padStart(8, '0')}` } : {}),
    ...(i % 11 === 0 ? { archived: true as const } : {}),
  }))
}

/** The search route, answered in the page with the route's meaning (every word, newest first, one window). */
function fakeClient(all: readonly MemoryItem[]): ApiClient {
  const searchMemory = (query: MemoryQuery, offset: number, limit: number) => {
    const words = query.q.toLowerCase().split(/\s+/).filter(Boolean)
    const matches = all
      .filter(
        (it) =>
          (query.source === undefined || it.source === query.source) &&
          (query.archived === undefined || (it.archived === true) === query.archived) &&
          words.every((w) => it.text.toLowerCase().includes(w)),
      )
      .reverse()
    return Promise.resolve({
      items: matches.slice(offset, offset + limit),
      total: matches.length,
      offset,
      limit,
      revision: 1,
    })
  }
  return { searchMemory } as unknown as ApiClient
}

function Before({ initial }: { initial: MemoryItem[] }): ReactNode {
  const [list, setList] = useState(initial)
  return <BeforeItems items={list} limit={10_000} onChange={setList} />
}

function After({ client }: { client: ApiClient }): ReactNode {
  const [draft, setDraft] = useState<MemoryDraft>(NO_EDITS)
  return (
    <ApiContext.Provider value={client}>
      <MemoryList
        surface="profile:p1"
        layer="profile"
        owner="p1"
        version={1}
        draft={draft}
        onDraft={setDraft}
        limit={10_000}
      />
    </ApiContext.Provider>
  )
}

let root: Root | undefined
const frame = (): Promise<void> =>
  new Promise((resolve) => {
    requestAnimationFrame(() => {
      setTimeout(resolve, 0)
    })
  })

/** What the bench calls through `page.evaluate`. */
const bench = {
  /** Mount `kind` with `n` items; resolves with ms until its rows are on screen and laid out. */
  async mount(kind: 'before' | 'after', n: number): Promise<number> {
    root?.unmount()
    document.body.innerHTML = '<div id="root" class="ap-root" style="width: 720px"></div>'
    const list = items(n)
    const t0 = performance.now()
    root = createRoot(document.getElementById('root')!)
    root.render(kind === 'before' ? <Before initial={list} /> : <After client={fakeClient(list)} />)
    while (document.querySelectorAll('.ap-memory-item').length < Math.min(n, 5)) await frame()
    void document.body.offsetHeight
    return performance.now() - t0
  },
  /** Type `keys` characters into the field labelled `label`, one per frame; ms per key, input to layout. */
  async type(label: string, keys: number): Promise<number[]> {
    const el = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[aria-label="${label}"]`)
    if (el === null) throw new Error(`no field labelled ${label}`)
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')!.set!
    const times: number[] = []
    let value = ''
    for (let i = 0; i < keys; i++) {
      await frame()
      value += '记'
      const t0 = performance.now()
      setter.call(el, value)
      el.dispatchEvent(new InputEvent('input', { bubbles: true, data: '记', inputType: 'insertText' }))
      // React renders a discrete event's update in a microtask queued during the dispatch, so before this one.
      await Promise.resolve()
      void document.body.offsetHeight
      times.push(performance.now() - t0)
    }
    return times
  },
  rows: (): number => document.querySelectorAll('.ap-memory-item').length,
}

installStyles({ effect: (run) => run() })
;(globalThis as { __bench?: typeof bench }).__bench = bench
