/**
 * A store in a child process, for the specs that need a process of its own (run with
 * `node --experimental-strip-types test/support/store-child.ts <mode> <file> [writers]`):
 *   crash    — write random commands forever from `writers` concurrent callers (so the store commits them in
 *              batches), printing `ack <revision> <digest>` after each acknowledged change, until the parent kills it;
 *              the fourth argument is the seed of its choices (the parent's property draws it: test/support/fuzz.ts);
 *   readonly — try one change and print, as one JSON line, what happened to memory (the parent checks the disk);
 *   writer   — run each command read from stdin (one JSON line each), answering each with one JSON line
 *              `{ok, revision, code?, message?}`; close the store and exit when stdin ends;
 *   hammer   — for `writers` ms, set conversation `<tag>-<n>` (n = 0, 1, 2…) one command at a time, printing
 *              `ack <n>` after each acknowledged one and `refused <n> <message>` for a refusal; then print `done`.
 *              The fourth argument is the tag.
 *   open     — open the store (migrating an older database), print `opened <lastError message or "">`, close it.
 *   touch    — open the store, make one change (the day's first write, so the daily backup follows), print
 *              `wrote`, give the backup a second, close, and print `closed; last error: <message or none>`.
 *   ownimport — import an own file of 8 profiles (`own0`…) of 2,000 items (`own <profile>.<item>`) in the
 *              background (lib/store/import-batches.ts), printing `progress <units written>` after each batch,
 *              until the parent kills it.
 */
import { createInterface } from 'node:readline'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { pngAvatar, stateDigest, webpAvatar } from './store-fixtures.ts'
import { seededRng, type Rng } from './fuzz.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { StoreError } from '../../lib/shared/errors.ts'

const [mode, file, writers = '1'] = process.argv.slice(2) as [string, string, string?]

const words = ['实事求是', '简洁', 'note', '记忆', 'Rust', '上海', '🙂', 'x'.repeat(300), '长文本'.repeat(200)]
const phrase = (r: Rng) => Array.from({ length: 1 + r.int(6) }, () => r.pick(words)).join(' ')

/** A random command that is valid for the current state (so most of them write). */
function randomCommand(store: ProfileStore, r: Rng): Command {
  const { profiles } = store.state
  const id = r.pick(profiles).id
  const roll = r.next()
  if (roll < 0.3)
    return {
      op: 'profile.update',
      id,
      patch: { [r.pick(['role', 'personality', 'speakingStyle', 'rules'])]: phrase(r) },
    }
  if (roll < 0.4)
    return { op: 'profile.update', id, patch: { avatar: r.chance(0.2) ? '' : webpAvatar(5_000 + r.int(55_000)) } }
  if (roll < 0.55) {
    const full = profiles.find((p) => p.id === id)!.memory.items.length > 400
    return full
      ? { op: 'memory.clear', target: { profileId: id } }
      : { op: 'memory.add', target: { profileId: id }, items: [{ text: `${r.pick(words)} ${r.next()}` }] }
  }
  if (roll < 0.7) {
    const patch = r.chance(0.3)
      ? { profileId: null, note: '', memories: [] }
      : { profileId: r.chance(0.5) ? id : null, note: phrase(r) }
    return { op: 'session.set', sessionId: `s${r.int(20)}`, patch }
  }
  if (roll < 0.78)
    return profiles.length < 25
      ? { op: 'profile.create', profile: { name: `p${r.next()}`.slice(0, 12), avatar: pngAvatar(200) } }
      : { op: 'profile.delete', id }
  if (roll < 0.86) return profiles.length > 3 ? { op: 'profile.delete', id } : { op: 'profile.duplicate', id }
  if (roll < 0.9) return { op: 'profile.activate', id }
  if (roll < 0.95 && profiles.length < 20) {
    const payload = {
      format: 'dsh-agent-profiles',
      version: 1,
      profiles: [{ id: 'imported', name: '导入', avatar: webpAvatar(30_000) }, { name: '导入二' }],
    }
    return { op: 'state.import', mode: 'merge', payload }
  }
  if (roll < 0.97) return { op: 'profile.duplicate', id }
  return r.chance(0.5) ? { op: 'state.restoreDefaults' } : { op: 'sessions.clearAll' }
}

async function crash(): Promise<void> {
  const seed = Number(process.argv[5])
  if (!Number.isSafeInteger(seed))
    throw new Error(
      `crash needs the seed of its choices as its fourth argument, got ${JSON.stringify(process.argv[5])}`,
    )
  const r = seededRng(seed)
  const store = await openStore({ file })
  if (store.lastError !== null) throw new Error(`opened with an error: ${store.lastError.message}`)
  process.stdout.write(`ready ${store.revision} ${stateDigest(store)}\n`)
  let acked = store.revision
  const writer = async (): Promise<never> => {
    for (;;) {
      // Picked from the state before the commands queued ahead of it, so some are refused (a profile another
      // writer deleted): a refusal is an answer too; only a failed write would be a fault here.
      const result = await store.command(randomCommand(store, r)).catch((e: unknown) => {
        if (e instanceof StoreError && e.code !== 'io') return undefined
        throw e
      })
      // All callers of a batch resolve after its write, at the same revision: acknowledge it once.
      if (result !== undefined && store.revision !== acked) {
        acked = store.revision
        process.stdout.write(`ack ${store.revision} ${stateDigest(store)}\n`)
      }
    }
  }
  await Promise.all(Array.from({ length: Number(writers) }, writer))
}

async function readonly(): Promise<void> {
  const store = await openStore({ file })
  const opened = store.lastError
  const before = { revision: store.revision, digest: stateDigest(store) }
  let error: { code?: string; message: string } | null = null
  try {
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { rules: '不该存进去', avatar: webpAvatar(8_000) },
    })
  } catch (e) {
    error = { code: (e as { code?: string }).code, message: (e as Error).message }
  }
  const after = { revision: store.revision, digest: stateDigest(store) }
  process.stdout.write(`${JSON.stringify({ before, after, error, opened, lastError: store.lastError })}\n`)
}

async function writer(): Promise<void> {
  const store = await openStore({ file })
  process.stdout.write(`${JSON.stringify({ ok: true, revision: store.revision, pid: process.pid })}\n`)
  for await (const line of createInterface({ input: process.stdin })) {
    const answer = await store.command(JSON.parse(line) as Command).then(
      () => ({ ok: true, revision: store.revision }),
      (e: unknown) => ({
        ok: false,
        revision: store.revision,
        code: (e as StoreError).code,
        message: (e as Error).message,
      }),
    )
    process.stdout.write(`${JSON.stringify(answer)}\n`)
  }
  await store.close()
}

async function hammer(): Promise<void> {
  const tag = process.argv[5] ?? 'child'
  const store = await openStore({ file })
  process.stdout.write('ready\n')
  const until = Date.now() + Number(writers)
  for (let n = 0; Date.now() < until; n++) {
    await store.command({ op: 'session.set', sessionId: `${tag}-${n}`, patch: { note: `${tag} ${n}` } }).then(
      () => process.stdout.write(`ack ${n}\n`),
      (e: unknown) => process.stdout.write(`refused ${n} ${(e as Error).message}\n`),
    )
  }
  await store.close()
  process.stdout.write('done\n')
}

async function open(): Promise<void> {
  const store = await openStore({ file })
  process.stdout.write(`opened ${store.lastError?.message ?? ''}\n`)
  await store.close()
}

async function touch(): Promise<void> {
  const store = await openStore({ file })
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: `touched ${Date.now()}` } })
  process.stdout.write('wrote\n')
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  await store.close()
  // How the day's backup ended, for a parent whose check finds none.
  process.stdout.write(`closed; last error: ${store.lastError?.message ?? 'none'}\n`)
}

async function ownimport(): Promise<void> {
  const store = await openStore({ file })
  const profiles = Array.from({ length: 8 }, (_, i) => ({
    id: `own${i}`,
    name: `Own ${i}`,
    memory: { summary: '', items: Array.from({ length: 2_000 }, (_, k) => ({ text: `own ${i}.${k}` })) },
  }))
  const text = JSON.stringify({ format: 'dsh-agent-profiles', version: 1, profiles })
  let n = 0
  const ctx = { now: Date.now(), newId: (prefix: string) => `${prefix}-c${n++}` }
  const read = readParsedFile({ name: 'mine.json', format: 'envelope', text, own: true }, 0, ctx)
  const own = new OwnImports(store)
  store.onChange(() => process.stdout.write(`progress ${own.status().done}\n`))
  own.start({ read, choice: { conflicts: 'keep-both', replace: new Set() } })
  await own.settled()
  process.stdout.write('finished\n')
  await new Promise(() => undefined)
}

await ({ crash, readonly, writer, hammer, open, touch, ownimport } as Record<string, () => Promise<void>>)[mode]!()
