/**
 * One bad row costs only that row: a row breaking this version's rules (a field over a limit, an unknown value, a
 * dangling id, text that is not JSON) is left exactly as it is in the database, out of the state (or mended in memory
 * where that is unambiguous), listed with its table, key and reason; every other row loads; no write deletes or
 * overwrites it; and once it is readable again (a version that can read it) it loads intact.
 */
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { expectRefused, perTest } from '../support/store-helpers.ts'

const { start, dir } = perTest()

/** A database holding three profiles with memory, pinned and noted conversations and an undo copy; closed. */
async function seeded(): Promise<{ file: string; ids: { item: string; other: string } }> {
  const store = await openStore({ file: join(await dir('ap-rows'), 'profiles.sqlite') })
  await store.command({
    op: 'memory.add',
    target: { profileId: 'coder' },
    items: [{ text: '用户写 Rust' }, { text: '用户用 Vim' }],
  })
  await store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户住在杭州' }] })
  for (let i = 0; i < 6; i++)
    await store.command({
      op: 'session.set',
      sessionId: `s${i}`,
      patch: i % 2 === 0 ? { profileId: 'writer' } : { note: `备注 ${i}` },
    })
  await store.command({ op: 'session.set', sessionId: 's-general', patch: { profileId: 'general' } })
  const [item, other] = store.state.profiles.find((p) => p.id === 'coder')!.memory.items
  await store.close()
  return { file: store.file, ids: { item: item!.id, other: other!.id } }
}

function sql(file: string, statement: string): void {
  const db = new DatabaseSync(file)
  db.exec(statement)
  db.close()
}

function row(file: string, query: string, ...args: string[]): unknown {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db.prepare(query).get(...args)
  } finally {
    db.close()
  }
}

const longName = 'x'.repeat(99)

describe('a row that breaks this version rules is set aside alone', () => {
  it('a profile with a field over its limit: only it is left out, listed, kept byte for byte through writes, and loads again once readable', async () => {
    const { file } = await seeded()
    sql(file, `UPDATE profiles SET data = json_set(data, '$.name', '${longName}') WHERE id = 'general'`)
    const before = row(file, "SELECT data FROM profiles WHERE id = 'general'")
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles.map((p) => p.id)).toEqual(['coder', 'writer'])
    expect(store.state.profiles[0]!.memory.items.map((it) => it.text)).toEqual(['用户写 Rust', '用户用 Vim'])
    expect(store.state.user?.items.map((it) => it.text)).toEqual(['用户住在杭州'])
    expect(store.health.setAside).toContainEqual({
      table: 'profiles',
      key: 'general',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.general.name', limit: 40 } },
      reason: expect.stringMatching(/name.*40/),
    })
    // The active profile was general: mended to the first one loaded, and said so.
    expect(store.state.activeId).toBe('coder')
    expect(store.health.setAside).toContainEqual({
      table: 'meta',
      key: 'activeId',
      why: { key: 'active-missing', params: { id: 'general' } },
      reason: expect.stringMatching(/names no profile/),
      mended: true,
    })
    // The conversation pinned to it is set aside too (its pin names nothing this version loaded); the others load.
    expect(store.state.sessions.has('s-general')).toBe(false)
    expect([...store.state.sessions.keys()].sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5'])
    expect(store.health.setAside).toContainEqual({
      table: 'sessions',
      key: 's-general',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'sessions.s-general.profileId' } },
      reason: expect.stringMatching(/profileId.*general/),
    })
    // Writes of every kind around it: none deletes or rewrites the rows set aside.
    await store.command({ op: 'profile.update', id: 'coder', patch: { rules: '照常保存' } })
    await store.command({ op: 'profile.create', profile: { name: '新的' } })
    await store.command({ op: 'profile.activate', id: 'writer' })
    await store.command({ op: 'sessions.clearAll' })
    const refused = await expectRefused(
      store,
      { op: 'session.set', sessionId: 's-general', patch: { note: '改不了' } },
      { code: 'conflict' },
    )
    expect(refused.message).toMatch(/sessions row "s-general" is set aside/)
    await store.close()
    expect(row(file, "SELECT data FROM profiles WHERE id = 'general'")).toEqual(before)
    expect(row(file, "SELECT data FROM sessions WHERE id = 's-general'")).toEqual({
      data: '{"profileId":"general","note":"","memories":[]}',
    })
    // A version whose limit allows the name (here: the name made readable again) finds the profile and its pin intact.
    sql(file, `UPDATE profiles SET data = json_set(data, '$.name', '通用助手') WHERE id = 'general'`)
    const again = await start(file)
    // (Its place in the list is where this version's writes left it: the others moved up around it.)
    expect(again.state.profiles.map((p) => p.id)).toEqual(expect.arrayContaining(['general', 'coder', 'writer']))
    expect(again.state.profiles).toHaveLength(4)
    expect(again.state.sessions.get('s-general')?.profileId).toBe('general')
    expect(again.state.profiles.find((p) => p.id === 'coder')!.rules).toBe('照常保存')
    expect(again.health.setAside).toEqual([])
  })

  it('a profile with an unknown value (a memory mode this version does not know) is left out alone', async () => {
    const { file } = await seeded()
    sql(file, `UPDATE profiles SET data = json_set(data, '$.memoryMode', 'telepathic') WHERE id = 'coder'`)
    const store = await start(file)
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'writer'])
    expect(store.health.setAside).toContainEqual({
      table: 'profiles',
      key: 'coder',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.coder.memoryMode' } },
      reason: expect.stringMatching(/memoryMode.*must be one of/),
    })
    // Nothing else but what belongs to it (its memory history) is set aside.
    expect(
      store.health.setAside
        .filter((r) => r.table !== 'profiles')
        .every((r) => r.table === 'memory_history' && r.key.startsWith('coder/')),
    ).toBe(true)
    // Its items are not loaded, and not lost: deleting nothing of them, they are still there.
    await store.command({ op: 'profile.delete', id: 'writer' })
    await store.close()
    expect(row(file, "SELECT count(*) AS n FROM memory_items WHERE profile_id = 'coder'")).toEqual({ n: 2 })
  })

  it('one memory item over its limit or with an unknown source: only that item is left out of its profile, and survives the profile being cleared', async () => {
    const { file, ids } = await seeded()
    sql(
      file,
      `UPDATE memory_items SET data = json_set(data, '$.text', '${'长'.repeat(2_000)}') WHERE id = '${ids.item}'`,
    )
    const store = await start(file)
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((it) => it.text)).toEqual([
      '用户用 Vim',
    ])
    expect(store.health.setAside).toEqual([
      {
        table: 'memory_items',
        key: `coder/${ids.item}`,
        why: {
          key: 'refused',
          refusal: { code: 'invalid', field: `memory_items.coder/${ids.item}.text`, limit: 1000 },
        },
        reason: expect.stringMatching(/text.*limit/),
      },
    ])
    await store.command({ op: 'memory.clear', target: { profileId: 'coder' } })
    await store.command({ op: 'profile.delete', id: 'coder' })
    await store.close()
    expect(row(file, "SELECT json_extract(data, '$.text') AS t FROM memory_items WHERE id = ?", ids.item)).toEqual({
      t: '长'.repeat(2_000),
    })
    expect(row(file, 'SELECT count(*) AS n FROM memory_items WHERE id = ?', ids.other)).toEqual({ n: 0 })

    const second = await seeded()
    sql(
      second.file,
      `UPDATE memory_items SET data = json_set(data, '$.source', 'dream') WHERE id = '${second.ids.other}'`,
    )
    const other = await start(second.file)
    expect(other.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((it) => it.text)).toEqual([
      '用户写 Rust',
    ])
    expect(other.health.setAside).toEqual([
      {
        table: 'memory_items',
        key: `coder/${second.ids.other}`,
        why: { key: 'refused', refusal: { code: 'invalid', field: `memory_items.coder/${second.ids.other}.source` } },
        reason: expect.stringMatching(/source.*must be one of/),
      },
    ])
  })

  it('dangling ids: a pin to no profile, items and an undo copy of no profile are left out; an active id naming nothing is mended to the first profile', async () => {
    const { file } = await seeded()
    sql(
      file,
      [
        `UPDATE sessions SET data = '{"profileId":"ghost","note":"","memories":[]}' WHERE id = 's0'`,
        `INSERT INTO memory_items (profile_id, id, pos, data) VALUES ('ghost', 'm-orphan', 0, '{"id":"m-orphan","text":"无主","source":"user","at":1}')`,
        `INSERT INTO memory_undo (profile_id, rev, at, memory) VALUES ('ghost', 1, 1, '{"summary":"","items":[]}')`,
        "UPDATE meta SET value = 'ghost' WHERE key = 'activeId'",
      ].join(';'),
    )
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles).toHaveLength(3)
    expect(store.state.activeId).toBe('general')
    expect(store.state.sessions.has('s0')).toBe(false)
    expect(store.state.sessions.get('s2')?.profileId).toBe('writer')
    expect(store.health.setAside).toEqual(
      expect.arrayContaining([
        {
          table: 'sessions',
          key: 's0',
          why: { key: 'refused', refusal: { code: 'invalid', field: 'sessions.s0.profileId' } },
          reason: expect.stringMatching(/names no existing profile \("ghost"\)/),
        },
        ...[
          ['memory_items', 'ghost/m-orphan'],
          ['memory_undo', 'ghost'],
        ].map(([table, key]) => ({
          table,
          key,
          why: { key: 'no-profile', params: { id: 'ghost' } },
          reason: 'names no profile ("ghost")',
        })),
        {
          table: 'meta',
          key: 'activeId',
          why: { key: 'active-missing', params: { id: 'ghost' } },
          reason: expect.stringMatching(/"ghost"/),
          mended: true,
        },
      ]),
    )
    // The mend is in memory only: the row keeps "ghost" until the user picks a profile, and then it is theirs.
    expect(row(file, "SELECT value FROM meta WHERE key = 'activeId'")).toEqual({ value: 'ghost' })
    await store.command({ op: 'profile.activate', id: 'coder' })
    expect(store.health.setAside.some((r) => r.table === 'meta')).toBe(false)
    await store.command({ op: 'sessions.clearAll' })
    await store.close()
    expect(row(file, "SELECT data FROM sessions WHERE id = 's0'")).toEqual({
      data: '{"profileId":"ghost","note":"","memories":[]}',
    })
    expect(row(file, "SELECT count(*) AS n FROM memory_undo WHERE profile_id = 'ghost'")).toEqual({ n: 1 })
  })

  it('text that is not JSON, and an avatar path that escapes (mended: shown without its avatar)', async () => {
    const { file } = await seeded()
    sql(
      file,
      [
        "UPDATE sessions SET data = 'not json {' WHERE id = 's1'",
        "UPDATE profiles SET data = json_set(data, '$.avatarFile', '../../etc/passwd') WHERE id = 'writer'",
      ].join(';'),
    )
    const store = await start(file)
    expect(store.state.sessions.has('s1')).toBe(false)
    expect(store.state.sessions.get('s3')?.note).toBe('备注 3')
    expect(store.state.profiles.find((p) => p.id === 'writer')!.avatar).toBe('')
    expect(store.health.setAside).toEqual(
      expect.arrayContaining([
        { table: 'sessions', key: 's1', why: { key: 'not-json' }, reason: expect.stringMatching(/JSON/) },
        {
          table: 'profiles',
          key: 'writer',
          why: { key: 'avatar-file' },
          reason: expect.stringMatching(/avatarFile/),
          mended: true,
        },
      ]),
    )
    // A mended row is this version's to write again: the next edit of it saves.
    await store.command({ op: 'profile.update', id: 'writer', patch: { rules: '能保存' } })
    await store.close()
    expect(row(file, "SELECT data FROM sessions WHERE id = 's1'")).toEqual({ data: 'not json {' })
  })

  it('a row another process writes that this version cannot read is set aside the same way, without a restart', async () => {
    const { file } = await seeded()
    const store = await start(file)
    expect(store.state.profiles).toHaveLength(3)
    sql(
      file,
      `UPDATE profiles SET data = json_set(data, '$.name', '${longName}'), rev = rev + 100 WHERE id = 'writer'; UPDATE meta SET value = value + 100 WHERE key = 'revision'`,
    )
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder'])
    expect(store.health.setAside).toContainEqual({
      table: 'profiles',
      key: 'writer',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.writer.name', limit: 40 } },
      reason: expect.stringMatching(/name/),
    })
    await store.command({ op: 'profile.update', id: 'coder', patch: { rules: '照常' } })
    expect(row(file, "SELECT json_extract(data, '$.name') AS n FROM profiles WHERE id = 'writer'")).toEqual({
      n: longName,
    })
  })
})
