/**
 * The list of past dsh conversations learning runs learned (lib/store/learn-past-file.ts): each line names the run
 * that learned it, the list kept before runs were named still reads as learned, and dropping an undone run's
 * conversations leaves every other line, a line appended meanwhile included, in a file readable by the user alone.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { addLearned, dropLearned, readLearned } from '../../lib/store/learn-past-file.ts'

let dir: string
let path: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ap-learn-past-'))
  path = join(dir, 'learn-past.txt')
})

afterEach(() => rmSync(dir, { recursive: true, force: true }))

it('reads the older list of ids alone as learned, and keeps it when another run is undone', async () => {
  writeFileSync(path, 'old-1\nold-2\n')
  await addLearned(path, 's-1', 'learn-aaaa0001')
  await addLearned(path, 's-2', 'learn-bbbb0002')
  expect(await readLearned(path)).toEqual(new Set(['old-1', 'old-2', 's-1', 's-2']))

  expect(await dropLearned(path, 'learn-aaaa0001')).toBe(1)
  expect(await readLearned(path)).toEqual(new Set(['old-1', 'old-2', 's-2']))
  expect(statSync(path).mode & 0o077).toBe(0)
  // Undoing a run that learned nothing (or again) writes nothing.
  const before = readFileSync(path, 'utf8')
  expect(await dropLearned(path, 'learn-aaaa0001')).toBe(0)
  expect(readFileSync(path, 'utf8')).toBe(before)
})

it('loses no conversation a run learns while another run is undone', async () => {
  await addLearned(path, 's-1', 'learn-aaaa0001')
  await addLearned(path, 's-2', 'learn-aaaa0001')
  // The run goes on learning while the undo reads and rewrites the list: none of its lines may fall in between.
  const undo = dropLearned(path, 'learn-aaaa0001')
  const later = Array.from({ length: 20 }, (_, i) => `s-${i + 3}`)
  for (const id of later) await addLearned(path, id, 'learn-cccc0003')
  expect(await undo).toBe(2)
  expect(await readLearned(path)).toEqual(new Set(later))
})
