/**
 * The turn ledger's records are committed without the turn waiting for the disk and synced just after
 * (lib/turn/ledger.ts): every record is kept, and a user who only chats for thousands of turns (records alone, never
 * a command that would checkpoint the WAL for them) does not grow a WAL without end: once it is past SQLite's
 * automatic checkpoint, the next record is committed as every command is, and that commit copies it back.
 */
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it } from 'vitest'
import { syncWal } from '../../lib/store/db/durable-later.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { TurnLedger } from '../../lib/turn/ledger.ts'
import { perTest } from '../support/store-helpers.ts'

const t = perTest()

/** Records, each of a new turn; several pages of the WAL a record past SQLite's 1,000. */
const TURNS = 2_500

it('keeps every record of a long chat, and its WAL as short as SQLite keeps it', async () => {
  const store = await t.start(join(await t.dir('ap-ledger'), 'profiles.sqlite'))
  const speaker = store.state.activeId
  let written: Promise<unknown> = Promise.resolve()
  // The store as the ledger sees it, keeping the last write so that the test can wait for it.
  const watched: Pick<ProfileStore, 'command' | 'readOnly' | 'file'> = {
    command: (cmd) => (written = store.command(cmd)),
    readOnly: undefined,
    file: store.file,
  }
  const warnings: string[] = []
  const ledger = new TurnLedger(watched, { warn: (m) => warnings.push(m) })
  let longest = 0
  for (let turn = 1; turn <= TURNS; turn++) {
    ledger.save({ sessionId: 's', turn, speakerId: speaker, core: [], recalled: [] })
    await written
    // The record's sync runs on after its commit: given a moment, as the next turn would give it.
    await sleep(1)
    if (turn % 100 === 0) longest = Math.max(longest, await syncWal(store.file))
  }
  expect(warnings).toEqual([])
  expect(Object.keys(store.turnsOf('s'))).toHaveLength(TURNS)
  // SQLite's automatic checkpoint starts at 1,000 pages; a record or two's pages past it before one is written FULL.
  expect(longest).toBeLessThan(1_200)
})
