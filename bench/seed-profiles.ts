/**
 * Seeding a benchmark's store: profiles replace the store's own through the import command, as a user's import
 * would. Shared by bench/routes-server.ts, bench/catchup-server.ts and bench/store.bench.ts. Not a `.bench.ts`, so `npm run bench` does not
 * run it alone.
 */
import type { ProfileStore } from '../lib/store/store.ts'

/** What a seeded profile may differ in; the rest is a plain profile with empty memory. */
export interface SeedProfile {
  id: string
  avatar?: string
  role?: string
  personality?: string
  speakingStyle?: string
  rules?: string
}

/** Replace the profiles of `store` with `n` made by `make(i)` (the first becomes the default). */
export async function importProfiles(
  store: Pick<ProfileStore, 'command'>,
  n: number,
  make: (i: number) => SeedProfile,
): Promise<void> {
  const now = Date.now()
  const profiles = Array.from({ length: n }, (_, i) => ({
    name: `配置 ${i}`,
    emoji: '🙂',
    avatar: '',
    role: '助手',
    personality: '',
    speakingStyle: '',
    rules: '',
    memoryEnabled: true,
    memory: { summary: '', items: [] },
    createdAt: now,
    updatedAt: now,
    ...make(i),
  }))
  await importAll(store, profiles, profiles[0]!.id)
}

/** Replace the profiles of `store` with `profiles` as given, `activeId` the default. */
export async function importAll(
  store: Pick<ProfileStore, 'command'>,
  profiles: readonly object[],
  activeId: string,
): Promise<void> {
  await store.command({
    op: 'state.import',
    mode: 'replace',
    payload: {
      format: 'dsh-agent-profiles',
      version: 1,
      exportedAt: new Date().toISOString(),
      activeId,
      profiles,
    },
  } as never)
}
