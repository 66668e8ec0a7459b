/**
 * A team library for the library specs: a teammate whose own sync repository (pushed once by their engine, the team
 * coder's rules set) is the team's repository, and machines that follow it read-only.
 */
import { join } from 'node:path'
import { expect } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import { installLibraries, type LibraryPart } from '../../lib/sync/library-part.ts'
import type { Machine, syncWorld } from './sync-machines.ts'

/** The team coder's rules in the team's repository. */
export const TEAM_RULES = '审查时先看测试'

/** The team's repository, pushed once by its lead with the coder's rules set. */
export async function teamRepo(world: ReturnType<typeof syncWorld>): Promise<{ remote: string; lead: Machine }> {
  const remote = await world.remote()
  const lead = await world.machine(remote)
  await lead.store.command({ op: 'profile.update', id: 'coder', patch: { rules: TEAM_RULES } })
  expect((await lead.engine.now()).error).toBeUndefined()
  return { remote, lead }
}

/** The team libraries of machine `m` (stopped by the caller through `parts`). */
export function librariesOf(m: Machine, parts: LibraryPart[]): LibraryPart {
  const libs = installLibraries(m.store, join(m.dir, 'sync'), { warn: (w) => m.log.push(w) }, { intervalMs: 60_000 })
  parts.push(libs)
  return libs
}

/** Follow `remote` as the library "平台组"; the pull must succeed. */
export async function follow(libs: LibraryPart, remote: string): Promise<void> {
  const r = await libs.add({ remote, branch: 'main', name: '平台组' })
  expect(r.libraries.find((l) => l.remote === remote)!.status.error).toBeUndefined()
}

/** The team profiles in a machine's list. */
export const team = (m: Machine): Profile[] => m.store.state.profiles.filter((p) => p.library !== undefined)

/** The team's coder in a machine's list. */
export const teamCoder = (m: Machine): Profile =>
  team(m).find((p) => p.rules.startsWith('审查') || p.name.startsWith('编程搭档'))!
