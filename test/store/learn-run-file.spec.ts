/**
 * A learning run's calls kept on disk (lib/store/learn-run-file.ts): written a line a call, a piece at a time (no
 * string of all of them is ever made: up to 30 million characters held the loop half a second), read back exactly,
 * and only as the calls of the run the head names; a dsh killed while writing them leaves the calls file before it
 * whole, and the next write or drop removes what the killed one left (the user's words, kept no longer than needed).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { dropCalls, readCalls, writeCalls, type RunCall } from '../../lib/store/learn-run-file.ts'

let dir: string
let path: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ap-learn-calls-'))
  path = join(dir, 'learn-calls.json')
})

afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, { recursive: true, force: true })
})

/** Call `i` of a run: 6,000 characters of material (the extraction's widest), in Chinese (three bytes a character). */
const call = (i: number): RunCall => ({
  material: `${i} 用户：${'我住在青岛，每天早上沿着海边跑步。'.repeat(400)}`.slice(0, 6000),
  service: 'chatgpt',
  title: `去青岛 ${i}`,
  at: 1_700_000_000_000 + i,
})

it('writes the calls a piece at a time, never as one string, and reads back exactly them', async () => {
  const calls = Array.from({ length: 300 }, (_, i) => call(i))
  const stringify = vi.spyOn(JSON, 'stringify')
  await writeCalls(path, 'learn-aaaa0001', calls)
  const longest = Math.max(...stringify.mock.results.map((r) => String(r.value).length))
  // 1.8 million characters of material: none of the strings made on the way holds more than one call.
  expect(longest).toBeLessThan(7_000)
  stringify.mockRestore()
  expect(await readCalls(path, 'learn-aaaa0001', 300)).toEqual(calls)
  expect(statSync(path).mode & 0o077).toBe(0)
})

it("reads another run's calls, a file cut short or one with a call too many as no calls", async () => {
  const calls = Array.from({ length: 20 }, (_, i) => call(i))
  await writeCalls(path, 'learn-aaaa0001', calls)
  expect(await readCalls(path, 'learn-bbbb0002', 20)).toBeUndefined()
  expect(await readCalls(path, 'learn-aaaa0001', 19)).toBeUndefined()
  expect(await readCalls(path, 'learn-aaaa0001', 21)).toBeUndefined()
  truncateSync(path, statSync(path).size - 100)
  expect(await readCalls(path, 'learn-aaaa0001', 20)).toBeUndefined()
  expect(await readCalls(join(dir, 'none.json'), 'learn-aaaa0001', 20)).toBeUndefined()
})

it('keeps the calls before whole when a dsh is killed writing new ones, and removes what it left', async () => {
  const before = Array.from({ length: 10 }, (_, i) => call(i))
  await writeCalls(path, 'learn-aaaa0001', before)
  // Another dsh writes 5,000 calls (90 MB) and is killed once some of them are on disk.
  const module = pathToFileURL(join(import.meta.dirname, '../../lib/store/learn-run-file.ts')).href
  const script = `
    const { writeCalls } = await import(${JSON.stringify(module)})
    const call = ${call.toString()}
    await writeCalls(${JSON.stringify(path)}, 'learn-bbbb0002', Array.from({ length: 5000 }, (_, i) => call(i)))
    process.send('done')`
  const child = spawn(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  )
  const left = () => readdirSync(dir).filter((f) => f.endsWith('.tmp'))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await vi.waitFor(
    () => {
      const temp = left()[0]
      expect(temp !== undefined && statSync(join(dir, temp)).size > 1_000_000).toBe(true)
    },
    { timeout: 60_000, interval: 1 },
  )
  child.kill('SIGKILL')
  await exited
  expect(left()).toHaveLength(1)
  expect(await readCalls(path, 'learn-aaaa0001', 10)).toEqual(before)
  expect(await readCalls(path, 'learn-bbbb0002', 5000)).toBeUndefined()

  await writeCalls(path, 'learn-cccc0003', before)
  expect(left()).toEqual([])
  expect(await readCalls(path, 'learn-cccc0003', 10)).toEqual(before)
  await dropCalls(path)
  expect(existsSync(path)).toBe(false)
})
