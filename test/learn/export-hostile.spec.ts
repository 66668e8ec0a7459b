/**
 * Hostile data exports read in the real import worker (lib/http/import-pool.ts → lib/learn/export-read.ts): ten
 * million messages, a conversations.json that claims 2 GB, an archive that expands past what it says, nesting a
 * million deep and one conversation of ten million messages are each refused with the limit it passes named, and
 * the host's event loop keeps turning while the worker reads. Timing is the benchmark's (`npm run bench -- learn`).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ImportPool } from '../../lib/http/import-pool.ts'
import { EXPORT_LIMITS } from '../../lib/learn/conversation.ts'
import { parseExport, readExport } from '../../lib/learn/export-read.ts'
import type { HeldRead } from '../../lib/learn/export-parts.ts'
import { claudeExport, repeated, streamedZip } from '../support/learn-exports.ts'
import { ImportError } from '../../lib/shared/errors.ts'

const pools: ImportPool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
})

/** The export read in a real worker, with the turns the host's event loop took meanwhile. */
async function inWorker(bytes: Uint8Array): Promise<{ read: HeldRead; turns: number }> {
  const pool = new ImportPool({ log: { warn: () => {} } })
  pools.push(pool)
  let turns = 0
  const timer = setInterval(() => turns++, 1)
  try {
    const read = await pool.readExport(bytes)
    return { read, turns }
  } finally {
    clearInterval(timer)
  }
}

const refusal = (read: { ok: true } | Extract<HeldRead, { ok: false }>) => {
  if (read.ok) throw new Error('the export was read')
  return read.error
}

describe('hostile exports', () => {
  it('refuses ten million messages (300 MB of JSON in a 2 MB zip) by their size, before expanding them', async () => {
    const zip = await streamedZip('conversations.json', [
      '[{"uuid":"x","name":"n","chat_messages":[',
      ...repeated('{"sender":"human","text":"a"},', 10_000_000 - 1),
      '{"sender":"human","text":"a"}]}]',
    ])
    expect(zip.length).toBeLessThan(4_000_000)
    const { read, turns } = await inWorker(zip)
    expect(refusal(read)).toMatchObject({
      key: 'exportTooLarge',
      field: 'conversations.json',
      limit: EXPORT_LIMITS.jsonBytes,
    })
    expect(refusal(read).params?.size).toBeGreaterThan(300_000_000)
    expect(turns).toBeGreaterThan(0)
  })

  it('refuses a conversations.json that claims 2 GB, and stops one that expands past the size it claims', async () => {
    const body = ['[', ...repeated('{"chat_messages":[]},', 200_000), '{}]']
    const claims2GB = await streamedZip('conversations.json', body, 2 ** 31)
    expect(refusal((await inWorker(claims2GB)).read)).toMatchObject({
      key: 'exportTooLarge',
      limit: EXPORT_LIMITS.jsonBytes,
    })
    const lies = await streamedZip('conversations.json', body, 1_000)
    expect(refusal((await inWorker(lies)).read)).toMatchObject({ key: 'zipBomb', field: 'conversations.json' })
  })

  it('refuses nesting a million deep after reading no further than the limit', async () => {
    const deep = await streamedZip('conversations.json', ['[', ...repeated('[', 1_000_000)])
    expect(refusal((await inWorker(deep)).read)).toMatchObject({ key: 'exportTooDeep', limit: EXPORT_LIMITS.depth })
  })

  it('refuses one conversation of ten million messages before parsing it', async () => {
    const one = await streamedZip('conversations.json', [
      '[{"uuid":"x","chat_messages":[',
      ...repeated('{},', 10_000_000),
      '{}]}]',
    ])
    expect(refusal((await inWorker(one)).read)).toMatchObject({
      key: 'exportConversationTooBig',
      limit: EXPORT_LIMITS.conversationValues,
    })
  })

  it('refuses an export past its message or conversation count, naming the limit', () => {
    const file = new TextEncoder().encode(JSON.stringify(claudeExport(40, 5).conversations))
    const limits = { ...EXPORT_LIMITS, messages: 30 }
    expect(() => parseExport(file, limits)).toThrow(ImportError)
    const error = refusal(readExport(file, limits))
    expect(error).toMatchObject({ key: 'exportTooManyMessages', limit: 30 })
    expect(refusal(readExport(file, { ...EXPORT_LIMITS, conversations: 39 }))).toMatchObject({
      key: 'exportTooManyConversations',
      limit: 39,
    })
    expect(readExport(file).ok).toBe(true)
  })
})
