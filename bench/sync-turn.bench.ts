/**
 * Sync turn benchmark (issue #41): a turn's latency on the real `dsh web` (this plugin installed, the offline model
 * server) with the sync working in the background against without. One host, a bare repository on disk as its remote;
 * rounds alternate: a turn alone, then a turn while "Sync now" runs again and again with a fact saved before each (so
 * every run commits, pushes and reads the clone). Latency: from sending the message to the model server receiving the
 * request (the prompt assembled by the plugin included). Target: with ≤ 1.05× without, medians.
 * Run: `npm run bench -- sync-turn` (Node 22, git on PATH).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { bootHost, postJson } from '../test/support/host-api.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
/** Whether each background run follows a saved fact (so it commits and pushes) or finds nothing to do. */
const SAVES = process.env.SYNC_TURN_SAVES !== '0'

const model = await startModelServer()
const host = await bootHost(model)
const root = mkdtempSync(join(tmpdir(), 'ap-bench-sync-turn-'))
try {
  const remote = join(root, 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', remote])
  await fetch(`${host.web.url}/__ap/sync/settings`, postJson({ remote, branch: 'main' }))
  await fetch(`${host.web.url}/__ap/sync/now`, postJson({}))
  const profileId = (await host.read()).state.activeId
  const sessionId = await host.conversation()
  const turn = async (i: number, tag: string) => {
    const t0 = performance.now()
    await host.say(sessionId, `第 ${i} 轮（${tag}）：今天写点什么？`)
    return performance.now() - t0
  }
  await turn(0, 'warm')
  const alone: number[] = []
  const busy: number[] = []
  let n = 0
  for (let i = 1; i <= ROUNDS; i++) {
    alone.push(await turn(i, 'alone'))
    let syncing = true
    const loop = (async () => {
      while (syncing) {
        if (SAVES)
          await host.command({ op: 'memory.add', target: { profileId }, items: [{ text: `后台同步的事实 ${n}` }] })
        n++
        await fetch(`${host.web.url}/__ap/sync/now`, postJson({}))
      }
    })()
    // Let the first run get under way.
    await new Promise((r) => setTimeout(r, 50))
    busy.push(await turn(i, 'sync'))
    syncing = false
    await loop
  }
  const a = median(alone)
  const b = median(busy)
  console.log(
    `turn latency, median of ${ROUNDS}: alone ${a.toFixed(1)} ms, with sync running ${b.toFixed(1)} ms (${n} syncs)`,
  )
  console.log(`ratio with / without: ${(b / a).toFixed(3)}×`)
} finally {
  await host.stop()
  await model.close()
  rmSync(root, { recursive: true, force: true })
}
