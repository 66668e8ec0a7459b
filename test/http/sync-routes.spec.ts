/**
 * The sync routes on the real handler and the real sync part: the settings refuse a remote that is an option or
 * another transport (naming the field) and change nothing; a local bare repository set as the remote is synced with
 * "Sync now", whose answer says when; the status says why a sync failed.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ProfileStore } from '../../lib/store/store.ts'
import { httpClient, type HttpClient } from '../support/http.ts'
import { syncHost, type SyncHost } from '../support/sync-host.ts'

let host: SyncHost
let dir: string
let store: ProfileStore
let api: HttpClient

beforeEach(async () => {
  host = await syncHost('ap-sync-routes-')
  dir = host.dir
  store = host.store
  api = httpClient(host.port)
})

afterEach(() => host.close())

describe('sync routes', () => {
  it('start off, and refuse a remote that is an option or another transport, naming the field and rule', async () => {
    expect((await api.get('/__ap/sync')).json).toMatchObject({ settings: null, status: { running: false } })
    for (const remote of ['-oProxyCommand=touch /tmp/x', 'ext::sh -c touch% /tmp/x', 'not a remote', 42]) {
      const r = await api.post('/__ap/sync/settings', { remote, branch: 'main' })
      expect(r.status, String(remote)).toBe(400)
      expect(r.json.error).toMatchObject({ code: 'invalid', field: 'remote', rule: 'sync.remote.form' })
    }
    const long = await api.post('/__ap/sync/settings', { remote: `/${'x'.repeat(1_000)}`, branch: 'main' })
    expect(long.json.error).toMatchObject({ code: 'invalid', field: 'remote', limit: 1_000 })
    for (const branch of ['../x', 7]) {
      const b = await api.post('/__ap/sync/settings', { remote: '/tmp/r.git', branch })
      expect(b.json.error).toMatchObject({ code: 'invalid', field: 'branch', rule: 'sync.branch.form' })
    }
    expect((await api.get('/__ap/sync')).json.settings).toBeNull()
    expect(existsSync(join(dir, 'data', 'sync'))).toBe(false)
  })

  it('a local repository set as the remote is synced by "sync now", and the status says when', async () => {
    const remote = join(dir, 'remote.git')
    execFileSync('git', ['init', '--bare', '--quiet', remote])
    const set = await api.post('/__ap/sync/settings', { remote, branch: 'profiles' })
    expect(set.json.settings).toEqual({ remote, branch: 'profiles' })
    const r = await api.post('/__ap/sync/now', {})
    expect(r.json.status.error).toBeUndefined()
    expect(typeof r.json.status.lastSync).toBe('number')
    expect(r.json.status).toMatchObject({ remote, branch: 'profiles', pending: 0 })
    // A saved fact waits to be sent: one profile.
    const coder = store.state.profiles[0]!.id
    await store.command({
      op: 'memory.add',
      target: { profileId: coder },
      items: [{ text: 'likes Rust', source: 'tool' }],
    })
    expect((await api.get('/__ap/sync')).json.status.pending).toBe(1)
    const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', 'profiles'], { encoding: 'utf8' })
    expect(log).toContain('profile: +1 (编程搭档)')
  })

  it('the status says why a sync failed', async () => {
    await api.post('/__ap/sync/settings', { remote: join(dir, 'nowhere.git'), branch: 'main' })
    const r = await api.post('/__ap/sync/now', {})
    expect(r.json.status.error).toMatchObject({ key: 'unreachable' })
    // Nothing ever reached the remote: every profile waits.
    expect(r.json.status.pending).toBe(store.state.profiles.length)
  })
})
