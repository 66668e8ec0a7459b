/**
 * Two machines, end to end: two real `dsh web` processes on two Harness homes, one bare repository on disk as the
 * user's remote, the system git, the offline model server. Set through the plugin's own routes as the Sync section
 * does: a fact saved on A reaches B's store and B's model; both offline, both save, then both have both; a profile
 * deleted on A and edited on B is kept and the user told; a remote that goes away in the middle of a push keeps the
 * work and the retry sends it; a kill -9 of dsh in the middle of a sync loses nothing and the next start finishes it;
 * a force-pushed remote is refused with nothing local changed. The two hosts boot once for the whole file.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { SyncReply } from '../../lib/shared/sync.ts'
import { makeHome, type Home } from '../support/dsh.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'
import { gitIn } from '../support/sync-machines.ts'

let model: ModelServer
let homes: Home[] = []
let a: Host
let b: Host
let root: string
let remote: string

beforeAll(async () => {
  model = await startModelServer()
  root = mkdtempSync(join(tmpdir(), 'ap-sync-e2e-'))
  remote = join(root, 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', remote])
  homes = [makeHome(['web']), makeHome(['web'])]
  ;[a, b] = await Promise.all(homes.map((home) => bootHost(model, { home })))
  for (const h of [a, b]) expect((await settings(h, remote)).settings).toEqual({ remote, branch: 'main' })
  for (const h of [a, b, a]) expect((await syncNow(h)).status.error).toBeUndefined()
}, 240_000)

afterAll(async () => {
  await a?.stop()
  await b?.stop()
  await model?.close()
  for (const h of homes) h.cleanup()
  rmSync(root, { recursive: true, force: true })
})

async function settings(h: Host, to: string): Promise<SyncReply> {
  return (await (
    await fetch(`${h.web.url}/__ap/sync/settings`, postJson({ remote: to, branch: 'main' }))
  ).json()) as SyncReply
}
async function syncNow(h: Host): Promise<SyncReply> {
  return (await (await fetch(`${h.web.url}/__ap/sync/now`, postJson({}))).json()) as SyncReply
}
async function status(h: Host): Promise<SyncReply> {
  return (await (await fetch(`${h.web.url}/__ap/sync`)).json()) as SyncReply
}
async function activeId(h: Host): Promise<string> {
  return (await h.read()).state.activeId
}
async function save(h: Host, text: string): Promise<void> {
  await h.command({ op: 'memory.add', target: { profileId: await activeId(h) }, items: [{ text }] })
}
async function facts(h: Host): Promise<string[]> {
  return (await h.profile(await activeId(h))).memory.items.map((it) => it.text)
}
async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}
/** The remote's branch as the files of its newest commit's active-profile memory say. */
const remoteHas = (text: string) => {
  try {
    return gitIn(remote, 'grep', '-F', '-q', text, 'main', '--', 'profiles') !== undefined
  } catch {
    return false
  }
}
/** A pre-receive hook in the remote (the remote's own server behaviour; hooks never travel in content). */
function hook(script: string | undefined): void {
  const file = join(remote, 'hooks', 'pre-receive')
  if (script === undefined) rmSync(file, { force: true })
  else {
    writeFileSync(file, `#!/bin/sh\n${script}\n`)
    chmodSync(file, 0o755)
  }
}

it("a fact saved on A is on B after B's next sync, and in B's next conversation's prompt", async () => {
  await save(a, '用户的猫叫团子')
  expect((await syncNow(a)).status).toMatchObject({ pending: 0 })
  expect(await facts(b)).not.toContain('用户的猫叫团子')
  expect((await syncNow(b)).status.error).toBeUndefined()
  expect(await facts(b)).toContain('用户的猫叫团子')
  const [turn] = await b.say(await b.conversation(), '我的猫叫什么？')
  expect(turn!.system).toContain('用户的猫叫团子')
}, 240_000)

it('both offline, both save, then sync: both have both', async () => {
  renameSync(remote, `${remote}.away`)
  try {
    await save(a, 'offline fact from A')
    await save(b, 'offline fact from B')
    for (const h of [a, b]) {
      const s = (await syncNow(h)).status
      expect(s.error?.key).toBe('unreachable')
      expect(s.pending).toBe(1)
    }
  } finally {
    renameSync(`${remote}.away`, remote)
  }
  for (const h of [a, b, a]) expect((await syncNow(h)).status.error).toBeUndefined()
  for (const h of [a, b])
    expect(await facts(h)).toEqual(expect.arrayContaining(['offline fact from A', 'offline fact from B']))
}, 240_000)

it('a profile deleted on A and edited on B is kept on both, and B is told', async () => {
  const made = await a.command<{ state: { profiles: { id: string; name: string }[] } }>({
    op: 'profile.create',
    profile: { name: 'Traveller' },
  })
  const id = made.state.profiles.find((p) => p.name === 'Traveller')!.id
  await syncNow(a)
  await syncNow(b)
  expect((await b.profile(id)).name).toBe('Traveller')
  await a.command({ op: 'profile.delete', id })
  await b.command({ op: 'profile.update', id, patch: { rules: 'edited on B' } })
  await syncNow(a)
  const told = (await syncNow(b)).status
  await syncNow(a)
  expect(told.notes).toContainEqual(expect.objectContaining({ kind: 'kept', profileId: id, deletedOn: 'there' }))
  for (const h of [a, b]) expect((await h.profile(id)).rules).toBe('edited on B')
}, 240_000)

it('a remote that goes away in the middle of a push keeps the work, and the retry sends it', async () => {
  // The remote's receiving end dies while the push is under way.
  hook('kill -9 $PPID')
  await save(a, 'saved while the remote fell over')
  const failed = (await syncNow(a)).status
  expect(failed.error?.key).toMatch(/unreachable|failed/)
  expect(failed.pending).toBe(1)
  expect(remoteHas('saved while the remote fell over')).toBe(false)
  expect(await facts(a)).toContain('saved while the remote fell over')
  hook(undefined)
  // Nobody presses "Sync now": the engine retries by itself.
  await until(
    'the retry',
    async () => (await status(a)).status.error === undefined && (await status(a)).status.pending === 0,
  )
  expect(remoteHas('saved while the remote fell over')).toBe(true)
  await syncNow(b)
  expect(await facts(b)).toContain('saved while the remote fell over')
}, 240_000)

it('a kill -9 of dsh in the middle of a sync loses nothing, and the next start finishes the sync', async () => {
  const started = join(root, 'hook-started')
  const pidFile = join(root, 'hook.pid')
  hook(`echo $$ > ${pidFile}; touch ${started}; exec sleep 120`)
  await save(a, 'saved before the kill')
  const running = syncNow(a).catch(() => undefined)
  await until('the push to start', async () => existsSync(started))
  const home = a.home
  process.kill(a.web.pid, 'SIGKILL')
  await running
  await a.stop()
  // The remote's side of the dead push ends; the remote is reachable again.
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
  hook(undefined)
  a = await bootHost(model, { home })
  expect(await facts(a)).toContain('saved before the kill')
  // The next start syncs by itself: the commit made before the kill reaches the remote.
  await until(
    'the resumed sync',
    async () => (await status(a)).status.lastSync !== undefined && (await status(a)).status.pending === 0,
  )
  expect((await status(a)).status.error).toBeUndefined()
  expect(remoteHas('saved before the kill')).toBe(true)
  const clone = join(home.dir, 'agent-profiles', 'sync', 'personal')
  expect(() => gitIn(clone, 'fsck', '--no-progress', '--strict')).not.toThrow()
  expect(existsSync(`${clone}.lock`)).toBe(false)
  await syncNow(b)
  expect(await facts(b)).toContain('saved before the kill')
}, 240_000)

it('a force-pushed remote is refused with a clear status, and nothing local changes', async () => {
  await syncNow(a)
  const head = gitIn(remote, 'rev-parse', 'main').trim()
  const rewritten = gitIn(remote, 'commit-tree', 'main~1^{tree}', '-m', 'rewritten').trim()
  gitIn(remote, 'update-ref', 'refs/heads/main', rewritten)
  const before = await a.profiles()
  const s = (await syncNow(a)).status
  expect(s.error?.key).toBe('rewritten')
  expect(await a.profiles()).toEqual(before)
  expect(gitIn(remote, 'rev-parse', 'main').trim()).toBe(rewritten)
  expect(head).not.toBe(rewritten)
}, 240_000)
