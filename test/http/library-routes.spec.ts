/**
 * The team library routes on the real handler and the real sync part: adding a library (a local bare repository)
 * pulls its profiles into the list marked with its name; malformed remotes, unknown fields and a second add of the
 * same library are refused naming the field and change nothing; a cross-site request is refused; removing it takes
 * its profiles out of the list.
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
  host = await syncHost('ap-library-routes-')
  dir = host.dir
  store = host.store
  api = httpClient(host.port)
})

afterEach(() => host.close())

/** A team repository on disk: this machine's own profiles, pushed by its own sync (a team starts from one). */
async function teamRemote(): Promise<string> {
  const remote = join(dir, 'team-profiles.git')
  execFileSync('git', ['init', '--bare', '--quiet', remote])
  await host.part.configure({ remote, branch: 'main' })
  expect((await host.part.now()).status.error).toBeUndefined()
  await host.part.configure({ remote: '', branch: 'main' })
  return remote
}

describe('team library routes', () => {
  it('refuse a malformed remote, an unknown field or a cross-site request, naming it, and change nothing', async () => {
    const before = store.state
    for (const [body, field] of [
      [{ remote: '-oProxyCommand=touch /tmp/x' }, 'remote'],
      [{ remote: 'ext::sh -c touch% /tmp/x' }, 'remote'],
      [{ remote: '' }, 'remote'],
      [{ remote: '/tmp/r.git', branch: '../x' }, 'branch'],
      [{ remote: '/tmp/r.git', name: 'x'.repeat(41) }, 'name'],
      [{ remote: '/tmp/r.git', push: true }, 'push'],
    ] as const) {
      const r = await api.post('/__ap/sync/libraries/add', body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.json.error).toMatchObject({ code: 'invalid', field })
    }
    const cross = await api.post(
      '/__ap/sync/libraries/add',
      { remote: '/tmp/r.git' },
      { 'sec-fetch-site': 'cross-site' },
    )
    expect(cross.status).toBe(403)
    expect((await api.get('/__ap/sync/libraries')).json).toEqual({ libraries: [] })
    expect(store.state).toBe(before)
    expect(existsSync(join(dir, 'data', 'sync', 'libraries.json'))).toBe(false)
  })

  it('add a library: its profiles join the list marked with its name; a second add is refused; remove takes them out', async () => {
    const remote = await teamRemote()
    const own = store.state.profiles.length
    const r = await api.post('/__ap/sync/libraries/add', { remote })
    expect(r.status).toBe(200)
    expect(r.json.libraries).toEqual([
      expect.objectContaining({
        remote,
        branch: 'main',
        name: 'team-profiles',
        status: expect.objectContaining({ profiles: own }),
      }),
    ])
    expect(store.state.profiles.filter((p) => p.library?.name === 'team-profiles')).toHaveLength(own)
    const again = await api.post('/__ap/sync/libraries/add', { remote, branch: 'main', name: '别名' })
    expect(again.status).toBe(409)
    expect(again.json.error).toMatchObject({ code: 'conflict', field: 'remote', rule: 'library.added' })
    // Editing a team profile over the command route is refused, worded with the library's name.
    const team = store.state.profiles.find((p) => p.library !== undefined)!
    const edit = await api.command({ op: 'profile.update', id: team.id, patch: { rules: 'x' } })
    expect(edit.status).toBe(409)
    expect(edit.json.error).toMatchObject({ rule: 'profile.library', values: ['team-profiles'], field: 'patch.rules' })
    const gone = await api.post('/__ap/sync/libraries/remove', { id: r.json.libraries[0].id })
    expect(gone.json).toEqual({ libraries: [] })
    expect(store.state.profiles.some((p) => p.library !== undefined)).toBe(false)
    expect(store.state.profiles).toHaveLength(own)
  }, 30_000)
})
