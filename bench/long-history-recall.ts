/**
 * The recall part of bench/long-history.bench.ts: at 100,000 items, 400 questions of one term each (half as rare as a
 * name or a date, half common: in a tenth of the items), the checkouts taking turns, p50 of each of
 *  - the scope search recall and `memory_search` run (lib/memory/search.ts) over the first profile's list: it ranks at
 *    most a few hundred rows and finds a commoner term's items newest first;
 *  - the index's ranked look alone (what the bench measured before), which ranks every row holding the term: 9,975
 *    rows for a common one at 100,000 items, twice (the look over all owners, then the one over the profile's),
 *    a look the scope search never makes for so common a term;
 *  - a turn's recall as recall-install.ts runs it: a user's question made a query (recall.ts), over the scope a
 *    conversation on `p0` reads (the user layer, the profile, the conversation's own), 40 items asked. The one-term
 *    questions above weigh every term alike and search the profile alone; a question names several words, some of
 *    them in every item of this seed (its items share their wording).
 */
import { join } from 'node:path'
import { median } from '../test/support/stats.ts'

interface RecallStore {
  state: { profiles: { id: string; memory: { items: unknown[] } }[] }
  searchIndex<T>(query: (index: { ranked(o: string[], t: string[], n: number): unknown[] }) => T): T | undefined
}

interface Search {
  searchLists(s: RecallStore, l: unknown[], q: Map<string, number>, n: number, focus?: number): unknown[]
  scopeLists(state: unknown, profile: unknown, sessionId: string, setting: undefined): unknown[]
}

interface Recall {
  recallQuery(message: string, earlier: [], now: number): { weights: Map<string, number> }
}

/** Questions a user asks of this seed's topics, as a turn's message. */
const QUESTIONS = [
  '我上次说的项目进展怎么样了？',
  '最近有什么旅行计划吗',
  '推荐一家咖啡店',
  '关键词 k17 是什么',
  'What did I say about TypeScript?',
  '搬家的事情你还记得吗',
  '下周的会议要准备什么',
  '我喜欢什么音乐',
  '读书笔记里提到过哪些书',
  '跑步的习惯坚持得怎么样',
]

/** Measure and print both figures of `stores` (one per checkout, holding `items` in all; the profile `p0` searched). */
export async function recallFigures(
  stores: readonly RecallStore[],
  checkouts: readonly { name: string; root: string }[],
  topics: readonly string[],
  items: number,
): Promise<void> {
  const search = await Promise.all(
    checkouts.map((c) => import(join(c.root, 'lib/memory/search.ts')) as Promise<Search>),
  )
  const recall = await Promise.all(
    checkouts.map((c) => import(join(c.root, 'lib/memory/recall.ts')) as Promise<Recall>),
  )
  const ranked: number[][] = checkouts.map(() => [])
  const scoped: number[][] = checkouts.map(() => [])
  const turns: number[][] = checkouts.map(() => [])
  for (let q = 0; q < 400; q++) {
    for (const i of q % 2 === 0 ? [0, 1] : [1, 0]) {
      const terms = q % 2 === 0 ? [`k${q % 997}`] : [topics[q % topics.length]!.slice(0, 2)]
      const list = stores[i]!.state.profiles.find((p) => p.id === 'p0')!.memory.items
      let started = performance.now()
      search[i]!.searchLists(
        stores[i]!,
        [{ owner: 'p0', layer: 'profile', items: list }],
        new Map(terms.map((t) => [t, 1])),
        20,
      )
      scoped[i]!.push(performance.now() - started)
      started = performance.now()
      stores[i]!.searchIndex((index) => index.ranked(['p0'], terms, 60))
      ranked[i]!.push(performance.now() - started)
      const profile = stores[i]!.state.profiles.find((p) => p.id === 'p0')!
      started = performance.now()
      const query = recall[i]!.recallQuery(QUESTIONS[q % QUESTIONS.length]!, [], Date.now())
      search[i]!.searchLists(
        stores[i]!,
        search[i]!.scopeLists(stores[i]!.state, profile, 'bench', undefined),
        query.weights,
        40,
        1,
      )
      turns[i]!.push(performance.now() - started)
    }
  }
  const ms = (x: number[]) => `${median(x).toFixed(2)} ms`
  checkouts.forEach((c, i) =>
    console.log(
      `recall ${c.name.padEnd(6)}: at ${items} items, p50 of the scope search ${ms(scoped[i]!)}; ` +
        `the index's ranked look alone (every row holding the term ranked) ${ms(ranked[i]!)}; ` +
        `a turn's recall (a question's words, the conversation's scope) p50 ${ms(turns[i]!)}`,
    ),
  )
}
