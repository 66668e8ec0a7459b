/**
 * The routes of the state as a whole (lib/http/routes-state.ts) on the real handler and a real store: the state and
 * its meta, a draft's preview, the backups and a restore, replies that stay small whatever the number of
 * conversations, and a data directory the routes cannot write.
 */
import { spawn } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LIMITS, type Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { state as validState } from '../../lib/validate/state.ts'
import { asStored, stateOf } from '../../lib/provenance/provenance.ts'
import { httpClient, isErrorShape, routeMeta } from '../support/http.ts'
import {
  api,
  store,
  dir,
  logs,
  overrides,
  expectSoundState,
  profileById,
  serveRoutesEachTest,
} from '../support/routes-rig.ts'
import { childArgs } from '../support/children.ts'

serveRoutesEachTest()

describe('GET /__ap/state', () => {
  it('answers the whole state and the meta, and HEAD answers the same headers without a body', async () => {
    const r = await api.get('/__ap/state')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(r.headers['cache-control']).toBe('no-store')
    expect(r.json.state.activeId).toBe(store.state.activeId)
    expect(r.json.state.profiles.map((p: Profile) => p.id)).toEqual(store.state.profiles.map((p) => p.id))
    // The data file by its name in the data directory: no reply carries the directory's absolute path.
    expect(r.json.meta).toEqual({ ...routeMeta(store), dataFile: 'profiles.sqlite', lastError: null })
    const head = await api.send({ method: 'HEAD', path: '/__ap/state' })
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
    expect(head.headers['content-length']).toBe(r.headers['content-length'])
  })

  it('still answers when the diagnostics provider throws, with an empty meta and a warning', async () => {
    overrides.meta = () => {
      throw new Error('diagnostics broke')
    }
    const r = await api.get('/__ap/state')
    expect(r.status).toBe(200)
    expect(r.json.meta).toEqual({})
    expect(logs.warn.join('\n')).toContain('diagnostics broke')
  })
})

describe('POST /__ap/preview', () => {
  it('renders an unsaved draft exactly as the renderer does, without saving it', async () => {
    const revision = store.revision
    const draft = {
      id: 'whatever',
      name: '草稿',
      avatar: '/__ap/avatar/x?v=1',
      role: '一位耐心的数学老师',
      rules: '只讲思路',
      memory: { summary: '用户在备考', items: [{ text: '喜欢例题' }] },
    }
    const setting = { profileId: 'ignored', note: '本对话用英文回答' }
    const r = await api.post('/__ap/preview', { profile: draft, setting })
    expect(r.status).toBe(200)
    const expected = renderProfile(
      {
        name: '草稿',
        role: draft.role,
        rules: draft.rules,
        memory: { summary: '用户在备考', items: [{ id: 'draft-0', text: '喜欢例题', source: 'user', at: 0 }] },
      },
      { note: setting.note, memories: [] },
    )
    expect(r.json).toEqual({ text: expected.text, chars: expected.chars, tokens: expected.tokens })
    expect(r.json.text).toContain('一位耐心的数学老师')
    expect(r.json.text).toContain('本对话用英文回答')
    expect(store.revision).toBe(revision)
  })

  it('refuses an over-limit draft field with its path and limit, as a save would', async () => {
    const r = await api.post('/__ap/preview', { profile: { role: 'x'.repeat(LIMITS.role + 1) } })
    expect(r.status).toBe(400)
    expect(r.json.error).toMatchObject({ code: 'invalid', field: 'profile.role', limit: LIMITS.role })
    const bad = await api.post('/__ap/preview', { profile: { role: 1 } })
    expect(bad.json.error).toMatchObject({ code: 'invalid', field: 'profile.role' })
  })

  it('answers an unexpected fault with a 500 that carries no stack, and logs the stack', async () => {
    overrides.preview = () => {
      throw new Error('renderer exploded')
    }
    const r = await api.post('/__ap/preview', { profile: { role: 'x' } })
    expect(r.status).toBe(500)
    expect(isErrorShape(r.json)).toBe(true)
    expect(r.json.error.code).toBe('internal')
    expect(r.text).not.toContain('renderer exploded')
    expect(r.text).not.toMatch(/\bat .*\.ts:\d+/)
    expect(logs.error.join('\n')).toMatch(/renderer exploded[\s\S]*routes\.ts/)
  })
})

describe('replies stay small whatever the number of conversations', () => {
  it('with 100,000 conversation settings, the state, every command and a conversation answer under 64 KB', async () => {
    const big = mkdtempSync(join(tmpdir(), 'ap-routes-big-'))
    try {
      const sessions = Object.fromEntries(
        Array.from({ length: LIMITS.sessions }, (_, i) => [
          `s${i}`,
          { profileId: i % 2 ? 'coder' : null, note: `第 ${i} 个对话`, memories: [] },
        ]),
      )
      writeFileSync(
        join(big, 'profiles.json'),
        JSON.stringify({
          version: 1,
          activeId: 'general',
          profiles: stateOf(
            validState({ version: 1, activeId: 'general', profiles: store.state.profiles }, 's'),
            's',
            asStored(0),
          ).profiles,
          sessions,
        }),
      )
      const many = await openStore({ file: join(big, 'profiles.json') })
      expect(many.state.sessions.size).toBe(LIMITS.sessions)
      const srv = createServer(
        createHandler({
          store: many,
          preview: renderProfile,
          meta: () => ({
            dataFile: '',
            counts: { profiles: 0, sessions: 0, memories: 0 },
            lastError: null,
            compressThreshold: 0,
            memoryBudget: 0,
          }),
          trustedHosts: () => [],
          log: { warn() {}, error() {} },
        }),
      )
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
      const client = httpClient((srv.address() as AddressInfo).port)
      try {
        const replies = [
          await client.get('/__ap/state'),
          await client.post('/__ap/command', { op: 'session.set', sessionId: 's7', patch: { note: '改过' } }),
          await client.post('/__ap/command', { op: 'profile.update', id: 'general', patch: { rules: '新的准则' } }),
          await client.post('/__ap/command', {
            op: 'memory.add',
            target: { sessionId: 's8' },
            items: [{ text: '事实' }],
          }),
          await client.get('/__ap/session/s9'),
        ]
        for (const r of replies) {
          expect(r.status).toBe(200)
          expect(Buffer.byteLength(r.text)).toBeLessThan(64 * 1024)
        }
        expect(replies[0]!.json.state.pins).toEqual({ coder: LIMITS.sessions / 2 })
        expect(replies[0]!.json.state.conversations).toBe(LIMITS.sessions)
        expect(replies[4]!.json).toMatchObject({ setting: { note: '第 9 个对话', profileId: 'coder' }, pinned: true })
        const refused = await client.post('/__ap/command', {
          op: 'session.set',
          sessionId: 'one-more',
          patch: { note: 'x' },
        })
        expect(refused.status).toBe(400)
        expect(refused.json.error).toMatchObject({ field: 'sessions', limit: LIMITS.sessions })
      } finally {
        srv.closeAllConnections()
        await new Promise<void>((resolve) => srv.close(() => resolve()))
        await many.close()
      }
    } finally {
      rmSync(big, { recursive: true, force: true })
    }
  })
})

describe('backups: GET /__ap/backups and POST /__ap/backups/restore', () => {
  it("lists the day's backup with what it holds, restores it answering the state, and refuses a name that is none", async () => {
    expect((await api.get('/__ap/backups')).json).toEqual({ backups: [] })
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '备份里的' } })
    // The day's backup is written beside the save, not before its reply: wait until it is listed.
    await expect.poll(async () => (await api.get('/__ap/backups')).json.backups.length, { timeout: 30_000 }).toBe(1)
    const list = (await api.get('/__ap/backups')).json.backups as { name: string; profiles: { name: string }[] }[]
    expect(list).toHaveLength(1)
    expect(list[0]!.profiles.map((p) => p.name)).toEqual(['通用助手', '编程搭档', '写作顾问'])
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '之后改的' } })

    const refused = await api.post('/__ap/backups/restore', { name: '../profiles' })
    expect(refused.status).toBe(404)
    expect(refused.json).toEqual({
      error: { code: 'not-found', message: expect.stringContaining('no backup'), field: 'name' },
    })
    expect((await api.post('/__ap/backups/restore', { name: 7 })).json.error).toMatchObject({
      code: 'invalid',
      field: 'name',
    })
    expect(profileById('general').rules).toBe('之后改的')

    const r = await api.post('/__ap/backups/restore', { name: list[0]!.name })
    expect(r.status).toBe(200)
    expect(r.json.state.profiles).toHaveLength(3)
    expect(r.json.meta).toBeDefined()
    // The user layer it restored, as its own route answers it: the page asks nothing more.
    expect(r.json.user).toEqual((await api.get('/__ap/user')).json)
    expect(profileById('general').rules).toBe('备份里的')
    await expectSoundState()
  })
})

describe('a restore never costs a backup', () => {
  it('with seven daily backups the oldest is restored and all seven stay; one holding no profile is refused 409 by rule, changing none', async () => {
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '那一周的' } })
    await expect.poll(async () => (await api.get('/__ap/backups')).json.backups.length, { timeout: 30_000 }).toBe(1)
    const root = join(dir, 'profiles.backups')
    const [today] = readdirSync(root)
    // Six earlier days, as a week of use leaves them.
    for (let day = 1; day <= 6; day++) cpSync(join(root, today!), join(root, `2020-01-0${day}`), { recursive: true })
    const empty = new DatabaseSync(join(root, '2020-01-02', 'profiles.sqlite'))
    empty.exec('DELETE FROM profiles')
    empty.close()
    const names = async () =>
      ((await api.get('/__ap/backups')).json.backups as { name: string; kind: string }[]).map(
        (b) => `${b.kind} ${b.name}`,
      )
    const week = await names()
    expect(week).toHaveLength(7)
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '后来改的' } })

    const refused = await api.post('/__ap/backups/restore', { name: '2020-01-02' })
    expect(refused.status).toBe(409)
    expect(refused.json).toEqual({
      error: { code: 'conflict', message: expect.stringContaining('no profile'), field: 'name', rule: 'backup.empty' },
    })
    expect(await names()).toEqual(week)
    expect(readdirSync(root)).toHaveLength(7)
    expect(profileById('general').rules).toBe('后来改的')

    const r = await api.post('/__ap/backups/restore', { name: '2020-01-01' })
    expect(r.status).toBe(200)
    expect(profileById('general').rules).toBe('那一周的')
    const after = await names()
    expect(after.filter((n) => n.startsWith('daily'))).toEqual(week)
    expect(after.filter((n) => n.startsWith('before-restore'))).toHaveLength(1)
  })
})

describe('a read-only data directory (the routes as an unprivileged user)', () => {
  it("answers a write 503 `unwritable`, not the request's fault, without the directory's path; nothing changes", async () => {
    const seed = await openStore({ file: join(dir, 'ro', 'profiles.sqlite') })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '原样' } })
    await seed.close()
    const data = join(dir, 'ro')
    // Readable by the user who now runs the routes; writable by nobody but root.
    for (const f of readdirSync(data, { recursive: true }) as string[]) chmodSync(join(data, f), 0o644)
    chmodSync(dir, 0o755)
    chmodSync(data, 0o555)
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    const child = spawn(process.execPath, childArgs('routes-child', join(data, 'profiles.sqlite')), {
      ...asNobody,
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          const m = /port (\d+)/.exec(out)
          if (m) resolve(Number(m[1]))
        })
        child.on('exit', (code) => reject(new Error(`the routes child exited (${code})`)))
      })
      const nobody = httpClient(port)
      const before = (await nobody.get('/__ap/state')).json.state.profiles
      const r = await nobody.command({ op: 'profile.update', id: 'general', patch: { rules: '不该存进去' } })
      expect(r.status).toBe(503)
      expect(r.json.error).toMatchObject({ code: 'unwritable', message: expect.stringContaining('the data directory') })
      expect(r.text).not.toContain(data)
      expect(r.text).not.toContain(dir)
      expect((await nobody.get('/__ap/state')).json.state.profiles).toEqual(before)
    } finally {
      child.stdin.end()
      chmodSync(data, 0o755)
    }
  })
})
