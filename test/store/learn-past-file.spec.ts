/**
 * The list of past dsh conversations learning runs learned (lib/store/learn-past-file.ts): each line names the run
 * that learned it, the list kept before runs were named still reads as learned, an undone run's conversations are
 * offered again while memory holds none of its items (and count as learned again when its items come back), no line
 * is lost when a run learns while another is undone, and a torn last line swallows nothing after it, in a file
 * readable by the user alone.
 */
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { addLearned, markUndone, readLearned } from '../../lib/store/learn-past-file.ts'

let dir: string
let path: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ap-learn-past-'))
  path = join(dir, 'learn-past.txt')
})

afterEach(() => rmSync(dir, { recursive: true, force: true }))

const none = () => false

it('reads the older list of ids alone as learned, and keeps it when another run is undone', async () => {
  writeFileSync(path, 'old-1\nold-2\n')
  await addLearned(path, 's-1', 'learn-aaaa0001')
  await addLearned(path, 's-2', 'learn-bbbb0002')
  expect(await readLearned(path, none)).toEqual(new Set(['old-1', 'old-2', 's-1', 's-2']))

  await markUndone(path, 'learn-aaaa0001')
  expect(await readLearned(path, none)).toEqual(new Set(['old-1', 'old-2', 's-2']))
})

it("counts an undone run's conversations as learned again while memory holds its items (the undo reverted)", async () => {
  await addLearned(path, 's-1', 'learn-aaaa0001')
  await addLearned(path, 's-2', 'learn-bbbb0002')
  await markUndone(path, 'learn-aaaa0001')
  expect(statSync(path).mode & 0o077).toBe(0)
  const held = new Set(['learn-aaaa0001'])
  expect(await readLearned(path, (run) => held.has(run))).toEqual(new Set(['s-1', 's-2']))
  // Undone once more: its items are gone again.
  held.clear()
  expect(await readLearned(path, (run) => held.has(run))).toEqual(new Set(['s-2']))
})

it('loses no conversation a run learns while another run is undone', async () => {
  await addLearned(path, 's-1', 'learn-aaaa0001')
  await addLearned(path, 's-2', 'learn-aaaa0001')
  const undo = markUndone(path, 'learn-aaaa0001')
  const later = Array.from({ length: 20 }, (_, i) => `s-${i + 3}`)
  await Promise.all(later.map((id) => addLearned(path, id, 'learn-cccc0003')))
  await undo
  expect(await readLearned(path, none)).toEqual(new Set(later))
})

it('starts each line on its own after a torn last line, so an undo is never swallowed', async () => {
  await addLearned(path, 's-1', 'learn-aaaa0001')
  // A crash mid-append left half a line.
  appendFileSync(path, 'learn-aaaa0001\ts-')
  await markUndone(path, 'learn-aaaa0001')
  await addLearned(path, 's-9', 'learn-bbbb0002')
  expect(await readLearned(path, none)).toEqual(new Set(['s-9']))
})
