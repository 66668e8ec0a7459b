import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, expect, it } from 'vitest'
import fc from 'fast-check'
import { factoryState } from '../../lib/state/defaults.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { stateDigest, tempDir } from '../support/store-fixtures.ts'
import { fcParams, genRng } from '../support/fuzz.ts'
import { childArgs } from '../support/children.ts'

/** Kills at least this many times, and more until MIN_ACKS writes were acknowledged in all. */
const CYCLES = 25
/**
 * What the property is about is acknowledged writes surviving a kill, so it runs until it has checked this many,
 * whatever the machine's speed: each kill comes after a drawn number of acknowledgements, never after a time.
 */
const MIN_ACKS = 300
/** A kill comes after 0 to this many acknowledgements of one writer (0: while it opens or makes its first write). */
const MOST_ACKS_A_KILL = 24
/** After its count of acknowledgements, the kill waits up to this much, so that it lands anywhere in a write. */
const KILL_JITTER_MS = 40
/** Concurrent callers in the writer: commands queue behind each write and are committed in batches of up to this. */
const WRITERS = 4
const dirs: { dispose(): Promise<void> }[] = []
afterAll(async () => {
  for (const d of dirs) await d.dispose()
})

/** What one child acknowledged before it was killed. `acks` is in order of acknowledgement. */
interface Run {
  ready: { revision: number; digest: string }
  acks: Map<number, string>
  exitedEarly: string | null
}

/** How many acknowledged writes carried more than one change (a batch of several commands). */
function batchedWrites(run: Run): number {
  let previous = run.ready.revision
  let batched = 0
  for (const revision of run.acks.keys()) {
    if (revision - previous > 1) batched++
    previous = revision
  }
  return batched
}

/** When a writer is killed: after `acks` acknowledged writes (0: once it is ready), then `jitterMs` later. */
interface Kill {
  acks: number
  jitterMs: number
}

/** Start the writer (its choices seeded by `seed`) and SIGKILL it at `kill`. */
function runAndKill(file: string, kill: Kill, seed: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childArgs('store-child', 'crash', file, String(WRITERS), String(seed)), {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const run: Run = { ready: { revision: -1, digest: '' }, acks: new Map(), exitedEarly: null }
    let out = ''
    let err = ''
    let killed = false
    let armed = false
    const arm = () => {
      armed = true
      setTimeout(() => {
        killed = true
        child.kill('SIGKILL')
      }, kill.jitterMs)
    }
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const lines = out.split('\n')
      out = lines.pop()!
      for (const line of lines) {
        const [kind, rev, digest] = line.split(' ')
        if (kind === 'ready') run.ready = { revision: Number(rev), digest: digest! }
        else if (kind === 'ack') run.acks.set(Number(rev), digest!)
        if (!armed && kind !== undefined && ['ready', 'ack'].includes(kind) && run.acks.size >= kill.acks) arm()
      }
    })
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()))
    child.on('error', reject)
    child.on('exit', () => {
      if (!killed) run.exitedEarly = err || 'exited without being killed'
      resolve(run)
    })
  })
}

it('after SIGKILL at random moments, with concurrent writers, the database passes quick_check, loads, and equals a state the store acknowledged (or the batch in flight)', async () => {
  // One run of CYCLES kills; its kill moments and the writers' choices are drawn from the property's generator, so a
  // failure prints the seed (FC_SEED replays the choices; the kill moments meet the writer wherever timing puts it).
  await fc.assert(
    fc.asyncProperty(fc.gen(), async (g) => {
      const rng = genRng(g)
      const t = await tempDir('ap-crash')
      dirs.push(t)
      const database = t.file.replace(/\.json$/, '.sqlite')
      // What the next writer must start from: the state this test just verified on disk (none before the first write).
      let expected: { revision: number; digest: string } | null = null
      let totalAcks = 0
      let inFlightSeen = 0
      let batched = 0
      let cycle = 0
      for (; cycle < CYCLES || totalAcks < MIN_ACKS; cycle++) {
        const kill = { acks: rng.int(MOST_ACKS_A_KILL + 1), jitterMs: rng.int(KILL_JITTER_MS) }
        const run = await runAndKill(t.file, kill, rng.int(2 ** 31))
        expect(run.exitedEarly).toBeNull()
        // The writer resumed from exactly what the previous check saw on disk.
        if (expected !== null) expect(run.ready).toEqual(expected)
        totalAcks += run.acks.size
        batched += batchedWrites(run)

        if (!existsSync(database)) {
          // Killed before its first write became durable: nothing was acknowledged and nothing is on disk.
          expect(run.acks.size).toBe(0)
          continue
        }
        // The database (with whatever its -wal holds) passes SQLite's own check, and a reopened store loads it.
        const db = new DatabaseSync(database)
        expect(db.prepare('PRAGMA quick_check').all()).toEqual([{ quick_check: 'ok' }])
        db.close()
        const store = await openStore({ file: t.file })
        expect(store.lastError).toBeNull()
        const onDisk = { revision: store.revision }
        if (onDisk.revision === 0) {
          // Killed after the first write created the file but before it committed: the file holds no save, so the store
          // starts from factory defaults again (made anew, with this start's times), as with no file at all.
          expect(store.state.profiles.map((p) => p.id)).toEqual(factoryState(0).profiles.map((p) => p.id))
          await store.close()
          expect(run.acks.size).toBe(0)
          expected = null
          continue
        }
        const digest = stateDigest(store)
        await store.close()
        const lastAck = Math.max(run.ready.revision, ...run.acks.keys())
        if (onDisk.revision > lastAck) {
          // Killed after the commit made a write durable but before its ack was printed: the one batch in flight, which
          // holds at most one command per writer.
          expect(onDisk.revision - lastAck).toBeLessThanOrEqual(WRITERS)
          inFlightSeen++
        } else {
          expect(onDisk.revision).toBe(lastAck)
          expect(digest).toBe(run.acks.get(lastAck) ?? run.ready.digest)
        }
        expected = { revision: onDisk.revision, digest }
      }
      // The writers' commands were group-committed: many writes carried several changes at once.
      expect(batched).toBeGreaterThan(50)
      console.info(
        `crash test: ${cycle} kills, ${totalAcks} acknowledged writes (${batched} of several commands), ${inFlightSeen} kills landed between durable write and ack`,
      )
    }),
    fcParams(1, { endOnFailure: true }),
  )
}, 240_000)
