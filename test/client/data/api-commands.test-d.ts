/**
 * The browser's commands are typed by op (`ApiClient.command`, derived from the schemas and the host's reply map in
 * lib/shared/commands.ts). A type-level
 * spec: the typecheck gate (`tsc -p tsconfig.json`, which includes test/) compiles it, and every `@ts-expect-error`
 * below fails that gate the day the line under it compiles — a misspelt op or field, a field of the wrong type, a
 * missing one, an op only the host sends or one the page reads with a GET, a reply field no op answers. Nothing here
 * runs.
 */
import { expectTypeOf } from 'vitest'
import type { ApiClient } from '../../../lib/client/data/api.ts'
import type { BrowserOp, HostOnlyOp, ReplyOf } from '../../../lib/shared/commands.ts'
import type { FileResult } from '../../../lib/shared/import-report.ts'
import type { MemoryHistoryEntry } from '../../../lib/shared/memory-target.ts'
import type { ProfileHead, WireSession } from '../../../lib/shared/wire-state.ts'
import type { UserReply } from '../../../lib/shared/wire-replies.ts'
import type { MemoryItem } from '../../../lib/state/model.ts'

/** No op is both the host's alone and the browser's. */
expectTypeOf<Extract<HostOnlyOp, BrowserOp>>().toBeNever()

/** Calls as lib/client makes them compile; each wrong one is refused. */
export async function commands(client: ApiClient): Promise<void> {
  await client.command('profile.update', { id: 'a', patch: { name: 'B' } })
  await client.command('session.set', { sessionId: 's', patch: { profileId: null, incognito: true } })
  // Ops whose fields are all optional take none.
  await client.command('profile.create')
  await client.command('sessions.clearAll')

  // @ts-expect-error a misspelt op
  await client.command('profile.updte', { id: 'a', patch: {} })
  // @ts-expect-error a misspelt field
  await client.command('profile.delete', { ID: 'a' })
  // @ts-expect-error a misspelt field inside the patch
  await client.command('session.set', { sessionId: 's', patch: { profileID: 'a' } })
  // @ts-expect-error a field of the wrong type
  await client.command('profile.activate', { id: 1 })
  // @ts-expect-error a missing field: the profile to delete
  await client.command('profile.delete')
  // @ts-expect-error a missing field: the patch
  await client.command('profile.update', { id: 'a' })
  // @ts-expect-error a memory list named as no list is
  await client.command('memory.remove', { target: { profile: 'a' }, itemId: 'm1' })
  // @ts-expect-error an import mode that does not exist
  await client.command('state.import', { payload: {}, mode: 'overwrite' })
}

/** What only the host half sends is no op of the browser's. */
export async function hostOnly(client: ApiClient): Promise<void> {
  // @ts-expect-error the turn ledger is the host's to write
  await client.command('turn.record', { sessionId: 's', turn: 1, profileId: 'a' })
  // @ts-expect-error which conversations still exist is the host's listing
  await client.command('sessions.forget', { sessionIds: ['s'] })
  // @ts-expect-error compression is the background job's
  await client.command('memory.compress', { profileId: 'a', memory: { summary: '' } })
}

/** What the page reads with a GET is no command of the browser's: a read never waits behind a save. */
export async function reads(client: ApiClient): Promise<void> {
  // @ts-expect-error the history is read with GET /__ap/memory/history
  await client.command('memory.history', { target: { profileId: 'a' } })
  expectTypeOf(await client.history({ layer: 'profile', owner: 'a' })).toEqualTypeOf<MemoryHistoryEntry[]>()
}

/** Each op answers its own fields, and only those. */
export async function replies(client: ApiClient): Promise<void> {
  const removed = await client.command('memory.remove', { target: { profileId: 'a' }, itemId: 'm1' })
  expectTypeOf(removed.session).toEqualTypeOf<WireSession | undefined>()
  // Any command that changed the user layer answers with it (About you's list reads it from the reply).
  expectTypeOf(removed.user).toEqualTypeOf<UserReply | undefined>()
  // @ts-expect-error a misspelt reply field
  void removed.sesion

  const created = await client.command('profile.create', { profile: { name: 'B' } })
  expectTypeOf(created.profile).toEqualTypeOf<ProfileHead>()

  const added = await client.command('memory.add', { target: { user: true }, items: [{ text: 'x' }] })
  expectTypeOf(added.added).toEqualTypeOf<MemoryItem[]>()
  expectTypeOf(added.duplicates).toEqualTypeOf<string[]>()

  const files = await client.command('profiles.importFiles', {
    files: [{ name: 'a.md', format: 'markdown', text: '# A' }],
  })
  expectTypeOf(files.files).toEqualTypeOf<FileResult[]>()

  // A command on one conversation always answers with it.
  const set = await client.command('session.set', { sessionId: 's', patch: { note: 'n' } })
  expectTypeOf(set.session).toEqualTypeOf<WireSession>()

  const updated = await client.command('profile.update', { id: 'a', patch: {} })
  expectTypeOf(updated).toEqualTypeOf<ReplyOf<'profile.update'>>()
  // @ts-expect-error no index signature: a field the op does not answer
  void updated.imported
}
