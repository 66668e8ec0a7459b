/**
 * The routes never answer with the data directory's absolute path (it names the user and their folders to any local
 * process that asks): a damaged database kept aside, the file Diagnostics names and the store's fault messages are
 * all said by their place in the data directory.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hideDataDir } from '../../lib/http/hide-data-dir.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { serveHealth } from '../support/health-server.ts'

let dir: string
let stop: (() => void) | undefined
let store: ProfileStore | undefined

afterEach(async () => {
  stop?.()
  stop = undefined
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the data directory in replies', () => {
  it('a damaged database kept aside is named in the data directory, never by its absolute path', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ap-hidden-'))
    const file = join(dir, 'profiles.sqlite')
    writeFileSync(file, 'not a database at all')
    store = await openStore({ file })
    expect(store.lastError?.keptAs).toContain(dir)
    const served = await serveHealth(store)
    stop = served.close
    const reply = await served.api.get('/__ap/state')
    expect(reply.status).toBe(200)
    expect(reply.text).not.toContain(dir)
    expect(reply.json.meta.dataFile).toBe('profiles.sqlite')
    expect(reply.json.meta.lastError.keptAs).toMatch(/^profiles\.sqlite\.bad-/)
  })

  it('says "the data directory" for the directory itself and leaves relative or root locations alone', () => {
    dir = mkdtempSync(join(tmpdir(), 'ap-hidden-'))
    const file = join(dir, 'profiles.sqlite')
    const text = JSON.stringify({ message: `EACCES: permission denied, mkdir '${dir}'`, at: `${dir}/x/y` })
    expect(JSON.parse(hideDataDir(text, file))).toEqual({
      message: "EACCES: permission denied, mkdir 'the data directory'",
      at: 'x/y',
    })
    expect(hideDataDir('{"a":"./p/q"}', 'profiles.sqlite')).toBe('{"a":"./p/q"}')
    expect(hideDataDir('{"a":"/etc/x"}', '/profiles.sqlite')).toBe('{"a":"/etc/x"}')
  })
})
