/**
 * The background import of a large own file (lib/store/import-batches.ts) on the real store: written in batches it
 * ends in the state one import of the whole file makes (random files against a store holding some of their
 * profiles already); the user's commands are answered while it runs and are kept; a second one is refused while one
 * runs; a process killed mid-import keeps every profile the user had and the imported profiles as whole batches; once
 * done it holds none of the memory lists it wrote (they stay on disk until read, as after a start).
 */
import { spawn } from 'node:child_process'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { ITEMS_PER_BATCH, OwnImports } from '../../lib/store/import-batches.ts'
import { packRead } from '../../lib/commands/packed-items.ts'
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import type { Profile } from '../../lib/state/model.ts'
import { isInMemory } from '../../lib/state/lazy-list.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { fcParams, genRng, type Rng } from '../support/fuzz.ts'
import { freshStore, importFilesInto } from '../support/store-helpers.ts'
import { StoreError } from '../../lib/shared/errors.ts'
import { childArgs } from '../support/children.ts'
import { ownEnvelope, ownFileOf } from '../support/hostile-files.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const stores: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})
async function store(): Promise<ProfileStore & { reopen(): Promise<ProfileStore> }> {
  const s = await freshStore()
  stores.push(s)
  return Object.assign(s.store, { reopen: () => s.open() })
}

let ids = 0
const ctx = () => ({ now: Date.now(), newId: (prefix: string) => `${prefix}-t${ids++}` })
const choice = { conflicts: 'keep-both' as const, replace: new Set<string>() }

/**
 * Import `file` as the page's confirmed own file now is: in the background, to its end, its items as the import
 * worker sends them (bytes, written off the host's thread).
 */
async function importInBackground(s: ProfileStore, file: ImportFile) {
  const own = new OwnImports(s)
  own.start({ read: packRead(readParsedFile(file, 0, ctx())), choice })
  return own.settled()
}

/** A random envelope: profiles of 0–700 items (so some cross batch boundaries), some with ids or content of `base`. */
function randomEnvelope(r: Rng, base: readonly { id: string; name: string; items: string[] }[]) {
  const profiles = Array.from({ length: 1 + r.int(5) }, (_, i) => {
    const from = base.length > 0 && r.chance(0.4) ? r.pick(base) : undefined
    const same = from !== undefined && r.chance(0.5)
    const items = same ? from.items : Array.from({ length: r.int(700) }, (_, k) => `fact ${i}.${k} ${r.int(1e6)}`)
    return {
      id: from?.id ?? `f${i}`,
      name: from?.name ?? `File ${i}`,
      memory: { summary: '', items: items.map((text, k) => ({ id: `m${k}`, text })) },
    }
  })
  return { format: 'dsh-agent-profiles', version: 1, profiles }
}

/** A profile as the user sees it: everything but the times an import stamps. */
const seen = (p: Profile) => {
  const { createdAt: _c, updatedAt: _u, ...rest } = p
  return { ...rest, memory: { ...p.memory, items: p.memory.items.map(({ at: _at, ...it }) => it) } }
}

describe('a large own file imported in the background', () => {
  it('ends in the state one import of the whole file makes, on random files against profiles already there', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const r = genRng(g)
        const base = Array.from({ length: 1 + r.int(3) }, (_, i) => ({
          id: `f${i}`,
          name: `File ${i}`,
          items: Array.from({ length: r.int(450) }, (_, k) => `known ${i}.${k}`),
        }))
        const baseEnvelope = {
          format: 'dsh-agent-profiles',
          version: 1,
          profiles: base.map((b) => ({
            id: b.id,
            name: b.name,
            memory: { summary: '', items: b.items.map((text, k) => ({ id: `m${k}`, text })) },
          })),
        }
        const file = ownFileOf(randomEnvelope(r, base))
        const [whole, batched] = [await store(), await store()]
        for (const s of [whole, batched]) await importFilesInto(s, ownFileOf(baseEnvelope))
        const one = await importFilesInto(whole, file)
        const status = await importInBackground(batched, file)
        expect(status).toMatchObject({ state: 'done', done: status.total })
        expect(batched.state.profiles.map(seen)).toEqual(whole.state.profiles.map(seen))
        const report = status.result!.files[0]!
        expect(report.profileIds).toEqual(one.files[0]!.profileIds)
        expect(report.unchanged).toEqual(one.files[0]!.unchanged)
        expect(status.result!.imported).toBe(one.imported)
      }),
      fcParams(6),
    )
  }, 120_000)

  it("answers the user's commands while it runs, and keeps what they saved", async () => {
    const s = await store()
    const profiles = Array.from({ length: 4 }, (_, i) => ({
      id: `big${i}`,
      name: `Big ${i}`,
      memory: { summary: '', items: Array.from({ length: 6 * ITEMS_PER_BATCH }, (_, k) => ({ text: `f${i}.${k}` })) },
    }))
    const own = new OwnImports(s)
    own.start({
      read: packRead(readParsedFile(ownFileOf({ format: 'dsh-agent-profiles', version: 1, profiles }), 0, ctx())),
      choice,
    })
    const answered: number[] = []
    // Wait until the first profile is in, then edit it: the rest of its memory still arrives after the edit.
    while (!s.state.profiles.some((p) => p.id === 'big0')) await new Promise((r) => setTimeout(r, 1))
    await s.command({ op: 'profile.update', id: 'big0', patch: { role: 'edited while importing' } })
    answered.push(own.status().done)
    for (let i = 0; i < 5; i++) {
      await s.command({ op: 'session.set', sessionId: `s${i}`, patch: { note: `n${i}` } })
      answered.push(own.status().done)
    }
    // Each command was answered while the import was still running (it had not written everything yet).
    expect(answered.every((done) => done < own.status().total)).toBe(true)
    const end = await own.settled()
    expect(end.state).toBe('done')
    const big0 = s.state.profiles.find((p) => p.id === 'big0')!
    expect(big0.role).toBe('edited while importing')
    expect(big0.memory.items.map((it) => it.text)).toEqual(profiles[0]!.memory.items.map((it) => it.text))
    expect(s.effective('s4').setting?.note).toBe('n4')
  })

  it('holds none of the lists it wrote once done, as a start would not, and they read back whole', async () => {
    const s = await store()
    // Past several batches, one batch exactly, and less than one: each kind of last batch.
    const sizes = [4 * ITEMS_PER_BATCH + 7, ITEMS_PER_BATCH, 3]
    const envelope = (text: (k: number) => string) => ({
      format: 'dsh-agent-profiles',
      version: 1,
      profiles: sizes.map((n, i) => ({
        id: `big${i}`,
        name: `Big ${i}`,
        memory: { summary: '', items: Array.from({ length: n }, (_, k) => ({ id: `m${k}`, text: text(k) })) },
      })),
    })
    const held = () => s.state.profiles.filter((p) => p.id.startsWith('big') && isInMemory(p.memory.items)).length
    const texts = () =>
      s.state.profiles.filter((p) => p.id.startsWith('big')).map((p) => p.memory.items.map((it) => it.text))
    expect(await importInBackground(s, ownFileOf(envelope((k) => `fact ${k}`)))).toMatchObject({ state: 'done' })
    expect(held()).toBe(0)
    expect(texts()).toEqual(sizes.map((n) => Array.from({ length: n }, (_, k) => `fact ${k}`)))
    // The same profiles replaced by a newer file of the user's: each is written whole, in one batch.
    const own = new OwnImports(s)
    own.start({
      read: readParsedFile(ownFileOf(envelope((k) => `newer ${k}`)), 0, ctx()),
      choice: { conflicts: 'ask', replace: new Set(sizes.map((_, i) => `big${i}`)) },
    })
    expect(await own.settled()).toMatchObject({ state: 'done', result: { imported: sizes.length } })
    expect(held()).toBe(0)
    expect(texts()).toEqual(sizes.map((n) => Array.from({ length: n }, (_, k) => `newer ${k}`)))
  })

  // Each imported profile is compared with every one there at each batch, by a key of its contents cached per profile
  // object; a key that was the profile's whole JSON kept a second copy of every imported memory in the host's heap.
  it('keeps no copy of the memory it imported in the host once done', async () => {
    const s = await store()
    const text = (p: number, k: number) =>
      `${'用户在这个项目里用过这套工具链，并且对它的构建速度印象深刻'.repeat(4)} ${p}.${k}`
    const envelope = ownEnvelope('big', 8, 1_500, text)
    const file = ownFileOf(envelope)
    const heap = async () => {
      await new Promise((resolve) => setImmediate(resolve))
      gc()
      return process.memoryUsage().heapUsed
    }
    // What one copy of the imported texts takes in the heap (two bytes a character: they are not Latin-1).
    const texts = envelope.profiles.reduce((n, p) => n + p.memory.items.reduce((m, it) => m + 2 * it.text.length, 0), 0)
    const before = await heap()
    expect(await importInBackground(s, file)).toMatchObject({ state: 'done' })
    // Their lists are on disk (see "holds none of the lists"): the heap grew by less than one copy of their texts.
    expect((await heap()) - before).toBeLessThan(texts)
  })

  // The worker hands the items over as one buffer of the whole file (packed-items.ts says why not one per profile):
  // a buffer held after the import would stay in the host's memory for good.
  it('holds none of the bytes of the items once it is done', async () => {
    const s = await store()
    const text = (p: number, k: number) => `${'用户在这个项目里用过这套工具链'.repeat(8)} ${p}.${k}`
    const envelope = ownEnvelope('held', 16, 1_500, text)
    // As the import worker sends a file of one's own: every profile's items as JSON in one buffer.
    const read = packRead(readParsedFile(ownFileOf(envelope), 0, ctx()))
    const packed = (read.packed ?? []).reduce((n, x) => n + x.bytes.byteLength, 0)
    const heap = () => {
      gc()
      const m = process.memoryUsage()
      return m.heapUsed + m.arrayBuffers
    }
    const before = heap()
    const buffersBefore = process.memoryUsage().arrayBuffers
    const own = new OwnImports(s)
    own.start({ read, choice })
    expect((await own.settled()).state).toBe('done')
    // Gone at once, not at the next full collection (none is made here before looking).
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(buffersBefore - packed / 2)
    // The bytes that came (counted in `before`) are gone, and nothing of the same size took their place.
    expect(heap() - before).toBeLessThan(-packed / 2)
  })

  // The worker makes each profile's buffer in its own malloc arena, one after the other; a buffer left for a full
  // collection to free kept the memory freed under it in the host's resident memory (30 MB after 95 × 5,200 items).
  // Each list written keeps its items' row positions in a table per profile (lib/store/db/positions.ts); V8 does not
  // shrink a WeakMap's table when its items go, so after the lists went on disk each table stayed sized for them.
  it('keeps no table of the places of the items it put on disk', async () => {
    const s = await store()
    const envelope = (tag: string, items: number) => ownEnvelope(tag, 12, items, (_, k) => `${k}`)
    const heap = async () => {
      await new Promise((resolve) => setImmediate(resolve))
      gc()
      return process.memoryUsage().heapUsed
    }
    // A smaller import first, so that the code the import runs is compiled before the heap is measured.
    expect(await importInBackground(s, ownFileOf(envelope('small', 500)))).toMatchObject({ state: 'done' })
    const before = await heap()
    expect(await importInBackground(s, ownFileOf(envelope('tiny', 5_200)))).toMatchObject({ state: 'done' })
    const imported = s.state.profiles.filter((p) => p.name.startsWith('tiny'))
    expect(imported.map((p) => isInMemory(p.memory.items))).toEqual(Array.from({ length: 12 }, () => false))
    // A table sized for 5,200 items is 131 KB (1.6 MB for the 12, 25 bytes an item); what the import keeps once its
    // lists are on disk is per profile, not per item: under 16 bytes an item in all.
    expect((await heap()) - before).toBeLessThan(12 * 5_200 * 16)
  })

  // The table of an imported profile goes when its list goes on disk: what is written to that list later must still
  // land between the right rows (read back in the same order after a restart).
  it('places what is written after it between the right rows of a list it put on disk', async () => {
    const s = await store()
    const envelope = {
      format: 'dsh-agent-profiles',
      version: 1,
      profiles: [
        {
          id: 'long',
          name: 'Long',
          memory: {
            summary: '',
            items: Array.from({ length: 3 * ITEMS_PER_BATCH + 7 }, (_, k) => ({ id: `m${k}`, text: `fact ${k}` })),
          },
        },
      ],
    }
    expect(await importInBackground(s, ownFileOf(envelope))).toMatchObject({ state: 'done' })
    // Its list is on disk, so the commands below read it back and place their rows from what they read.
    expect(isInMemory(s.state.profiles.find((p) => p.name === 'Long')!.memory.items)).toBe(false)
    const id = () => s.state.profiles.find((p) => p.name === 'Long')!.id
    const texts = () => s.state.profiles.find((p) => p.name === 'Long')!.memory.items.map((it) => it.text)
    const items = () => s.state.profiles.find((p) => p.name === 'Long')!.memory.items
    await s.command({ op: 'memory.update', target: { profileId: id() }, itemId: items()[5]!.id, text: 'edited 5' })
    await s.command({ op: 'memory.remove', target: { profileId: id() }, itemId: items()[ITEMS_PER_BATCH]!.id })
    await s.command({ op: 'memory.add', target: { profileId: id() }, items: [{ text: 'added last' }] })
    const held = texts()
    expect(held[5]).toBe('edited 5')
    expect(held.at(-1)).toBe('added last')
    const again = await s.reopen()
    expect(again.state.profiles.find((p) => p.name === 'Long')!.memory.items.map((it) => it.text)).toEqual(held)
  })

  it('refuses a second import while one runs, with rule import.running, and takes one again once it is done', async () => {
    const s = await store()
    const own = new OwnImports(s)
    const big = {
      format: 'dsh-agent-profiles',
      version: 1,
      profiles: [
        {
          id: 'a',
          name: 'A',
          memory: { summary: '', items: Array.from({ length: 3 * ITEMS_PER_BATCH }, (_, k) => ({ text: `x${k}` })) },
        },
      ],
    }
    own.start({ read: readParsedFile(ownFileOf(big), 0, ctx()), choice })
    let refused: unknown
    try {
      own.start({ read: readParsedFile(ownFileOf(big), 0, ctx()), choice })
    } catch (e) {
      refused = e
    }
    expect(refused).toBeInstanceOf(StoreError)
    expect(refused).toMatchObject({ code: 'conflict', rule: 'import.running', field: 'files' })
    expect((await own.settled()).state).toBe('done')
    expect(own.start({ read: readParsedFile(ownFileOf(big), 0, ctx()), choice }).state).toBe('running')
    expect((await own.settled()).result?.files[0]?.unchanged).toEqual([{ id: 'a', name: 'A' }])
  })
})

describe('a process killed in the middle of a background import', () => {
  it("keeps every profile the user had, and the imported ones as whole batches in the file's order", async () => {
    const s = await store()
    await s.command({ op: 'profile.update', id: s.state.profiles[0]!.id, patch: { role: 'mine, before the import' } })
    await s.command({ op: 'memory.add', target: { profileId: s.state.profiles[0]!.id }, items: [{ text: 'my fact' }] })
    const before = s.state.profiles.map(seen)
    const file = s.file
    await s.close()
    // The child imports 8 profiles of 2,000 items and prints its progress; it is killed once some is written.
    const child = spawn(process.execPath, childArgs('store-child', 'ownimport', file), {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString()
        const done = [...out.matchAll(/^progress (\d+)$/gm)].map((m) => Number(m[1])).at(-1) ?? 0
        if (done > 3_000) {
          child.kill('SIGKILL')
          resolve()
        }
      })
      child.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`the child ended before it was killed (${code}): ${out}`))
      })
    })
    await new Promise((r) => child.once('close', r))
    const after = await freshStore().then(async (t) => {
      stores.push(t)
      return t.open(file)
    })
    const mine = after.state.profiles.filter((p) => !p.id.startsWith('own'))
    expect(mine.map(seen)).toEqual(before)
    const imported = after.state.profiles.filter((p) => p.id.startsWith('own'))
    expect(imported.length).toBeGreaterThan(0)
    expect(imported.length).toBeLessThan(8)
    imported.forEach((p, i) => {
      const texts = p.memory.items.map((it) => it.text)
      // Every profile but the last one written is whole; the last holds whole batches from the start of its list
      // (at least the first one: a profile arrives with its first batch).
      if (i < imported.length - 1) expect(texts.length).toBe(2_000)
      expect(texts.length).toBeGreaterThanOrEqual(ITEMS_PER_BATCH)
      expect(texts).toEqual(Array.from({ length: texts.length }, (_, k) => `own ${i}.${k}`))
    })
  }, 60_000)
})
