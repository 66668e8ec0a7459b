/**
 * The real `dsh web` killed (SIGKILL) in the middle of the background import of a large own file (issue #40 item 3):
 * after a restart on the same home, what was written is there (the profiles before the cut whole, the cut one as a
 * run from the start of its list, the user's own profile untouched), and importing the same file again asks about
 * the profile that was cut short instead of doubling or overwriting it.
 */
import { afterAll, expect, it } from 'vitest'
import type { OwnImportStatus } from '../../lib/shared/own-import.ts'
import { makeHome } from '../support/dsh.ts'
import { ownImportBody } from '../support/hostile-files.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

const PROFILES = 12
const ITEMS = 2_100

let model: ModelServer | undefined
let host: Host | undefined
const home = makeHome(['web'])
afterAll(async () => {
  await host?.stop()
  await model?.close()
  home.cleanup()
})

/**
 * `n` one-character items (Hangul syllables): short enough that no profile passes the compression threshold, which
 * would rewrite its memory in the background and hide what the import wrote.
 */
const hangul = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(0xac00 + i))

const ownFile = () => ownImportBody('mine', 'Mine', PROFILES, ITEMS, (_, i) => String.fromCharCode(0xac00 + i))

const status = async (h: Host): Promise<OwnImportStatus> =>
  ((await (await fetch(`${h.web.url}/__ap/import-own`)).json()) as { status: OwnImportStatus }).status

it('keeps what was written when dsh is killed mid-import, and asks about the cut-short profile on the next import', async () => {
  model = await startModelServer()
  host = await bootHost(model, { home })
  await host.command({ op: 'profile.update', id: 'general', patch: { rules: 'MINE-BEFORE' } })
  const started = await fetch(`${host.web.url}/__ap/import-own`, postJson(ownFile()))
  expect(started.status).toBe(202)
  // Killed once some profiles are in and the import is still running.
  for (;;) {
    const s = await status(host)
    expect(s.state).toBe('running')
    if (s.done > 3 * (1 + ITEMS)) break
    await new Promise((r) => setTimeout(r, 20))
  }
  process.kill(host.web.pid, 'SIGKILL')
  // The next host boots on the same home only once this one is gone (its process closed), never beside it.
  await host.web.stop()

  host = await bootHost(model, { home })
  const profiles = await host.profiles()
  expect(profiles.find((p) => p.id === 'general')?.rules).toBe('MINE-BEFORE')
  const imported = profiles.filter((p) => p.id.startsWith('mine'))
  expect(imported.length).toBeGreaterThan(2)
  expect(imported.length).toBeLessThan(PROFILES)
  expect(imported.map((p) => p.id)).toEqual(imported.map((_, k) => `mine${k}`))
  imported.forEach((p, k) => {
    const texts = p.memory.items.map((it) => it.text)
    if (k < imported.length - 1) expect(texts).toHaveLength(ITEMS)
    expect(texts).toEqual(hangul(texts.length))
  })
  const cut = imported.at(-1)!
  const whole = cut.memory.items.length === ITEMS

  // The same file again: the whole ones are unchanged, the cut one (other content under its id) is asked about.
  expect((await fetch(`${host.web.url}/__ap/import-own`, postJson(ownFile()))).status).toBe(202)
  let end = await status(host)
  while (end.state === 'running') {
    await new Promise((r) => setTimeout(r, 100))
    end = await status(host)
  }
  expect(end.state).toBe('done')
  const report = end.result!.files[0]!
  expect(report.conflicts.map((c) => c.id)).toEqual(whole ? [] : [cut.id])
  expect(report.unchanged.length).toBe(whole ? imported.length : imported.length - 1)
  const after = await host.profiles()
  // The whole ones stay as they were, the rest of the file arrives beside them; the cut one waits for the choice.
  expect(after.filter((p) => p.id.startsWith('mine')).length).toBe(PROFILES)
  expect((await host.profile(cut.id)).memory.items.length).toBe(cut.memory.items.length)
}, 240_000)
