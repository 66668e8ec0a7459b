/**
 * Shared fixtures for the store specs and the store benchmark: throwaway data directories and avatar data URLs
 * whose bytes carry a real image signature. Holds no assertions.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Log } from '../../lib/shared/log.ts'

/** A fresh empty directory; `dispose()` removes it. */
export async function tempDir(label = 'ap-store'): Promise<{ dir: string; file: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `${label}-`))
  return { dir, file: join(dir, 'profiles.json'), dispose: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * A WebP avatar data URL of about `chars` characters: a RIFF/WEBP header and random (incompressible, like real
 * image data) bytes.
 */
export function webpAvatar(chars = 60_000): string {
  const size = Math.floor(((chars - 'data:image/webp;base64,'.length) * 3) / 4)
  const bytes = randomBytes(size)
  bytes.write('RIFF', 0, 'latin1')
  bytes.writeUInt32LE(size - 8, 4)
  bytes.write('WEBP', 8, 'latin1')
  return `data:image/webp;base64,${bytes.toString('base64')}`
}

/** A small PNG avatar data URL (signature + random bytes). */
export function pngAvatar(bytes = 64): string {
  const b = randomBytes(bytes)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  return `data:image/png;base64,${b.toString('base64')}`
}

/** The avatar files a state needs on disk, sorted: one per distinct image, named `<SHA-256 of its bytes>.<type>`. */
export function avatarFileNames(state: { profiles: readonly { avatar: string }[] }): string[] {
  const names = state.profiles
    .filter((p) => p.avatar !== '')
    .map((p) => {
      const [, type, base64] = /^data:image\/([a-z]+);base64,(.*)$/s.exec(p.avatar)!
      return `${createHash('sha256').update(Buffer.from(base64!, 'base64')).digest('hex')}.${type}`
    })
  return [...new Set(names)].sort()
}

/** Quiet log that remembers what it was told. */
export function memoryLog(): Log & { lines: string[] } {
  const lines: string[] = []
  return { warn: (m) => void lines.push(`warn ${m}`), error: (m) => void lines.push(`error ${m}`), lines }
}

/** Key-order-independent JSON, so two equal states give equal text however their objects were built. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })
}

/**
 * A short digest of a store's state, equal for equal states. Each avatar enters as the store's content hash of it
 * rather than its 60 KB of text, so taking a digest is cheap enough to do after every write.
 */
export function stateDigest(store: {
  state: { profiles: readonly { id: string; avatar: string }[] }
  avatarHash(id: string): string
}): string {
  const state = {
    ...store.state,
    profiles: store.state.profiles.map((p) => ({ ...p, avatar: store.avatarHash(p.id) })),
  }
  return createHash('sha256').update(canonicalJson(state)).digest('hex').slice(0, 20)
}
