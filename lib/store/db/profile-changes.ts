/**
 * Which profiles differ between two states, found without an index of every profile per batch: what the write of a
 * batch, its guard and the store's avatar upkeep all start from. Pure; it never reads the database.
 */
import type { Profile, State } from '../../state/model.ts'

/** The profiles of `next` that are not the very same objects in `prev`, each one's previous version, and the order. */
export interface ProfileChanges {
  changed: Profile[]
  previous: (Profile | undefined)[]
  sameOrder: boolean
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * States are immutable and an edit replaces only what it touches, so the common case (edits in place, same list) is
 * found by comparing positions, without building an index of every profile per batch.
 */
export function profileChanges(prev: State, next: State): ProfileChanges {
  const a = prev.profiles
  const b = next.profiles
  if (a.length === b.length) {
    const changes: ProfileChanges = { changed: [], previous: [], sameOrder: true }
    let i = 0
    for (; i < b.length; i++) {
      if (a[i] === b[i]) continue
      if (a[i]!.id !== b[i]!.id) break
      changes.changed.push(b[i]!)
      changes.previous.push(a[i])
    }
    if (i === b.length) return changes
  }
  const before = new Map(a.map((p) => [p.id, p]))
  const changed = b.filter((p) => before.get(p.id) !== p)
  return {
    changed,
    previous: changed.map((p) => before.get(p.id)),
    sameOrder: sameList(
      a.map((p) => p.id),
      b.map((p) => p.id),
    ),
  }
}

/** The profiles whose avatar differs between two states (their files are looked for on disk before a commit). */
export function newAvatars(prev: State, next: State): Set<string> {
  const { changed, previous } = profileChanges(prev, next)
  return new Set(changed.filter((p, i) => p.avatar !== '' && previous[i]?.avatar !== p.avatar).map((p) => p.id))
}

/** Whether going from `prev` to `next` can leave an avatar file unused: a profile went away or changed its avatar. */
export function dropsAvatars(prev: State, next: State): boolean {
  const { changed, previous, sameOrder } = profileChanges(prev, next)
  return !sameOrder || changed.some((p, i) => previous[i]?.avatar !== p.avatar)
}
