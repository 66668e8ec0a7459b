/**
 * The revisions of the state this process holds: the database revision it is at, and the revision of each profile
 * row and undo row in it, so that the reload of another process's commits reads only the rows that changed. It never
 * reads the database; the load, the reload and the write tell it what they took in.
 */
import type { State } from '../../state/model.ts'
import { profileChanges } from './profile-changes.ts'

/** What this process holds of one database, by revision. */
export class HeldRevisions {
  /** The revision this process's state is at. */
  revision = 0
  /** Each profile's row revision in that state. */
  readonly profiles = new Map<string, number>()
  /** Each undo copy's row revision in that state. */
  readonly undo = new Map<string, number>()

  /** Remember the row revisions of a state this process now holds, read from the rows. */
  adopt(
    revision: number,
    profiles: readonly { id: string; rev: number }[],
    undo: readonly { profile_id: string; rev: number }[],
  ): void {
    this.revision = revision
    this.profiles.clear()
    for (const p of profiles) this.profiles.set(p.id, p.rev)
    this.undo.clear()
    for (const u of undo) this.undo.set(u.profile_id, u.rev)
  }

  /** After this process wrote `next` over `prev` as `revision`: the rows it wrote are at that revision. */
  wrote(change: { prev: State; next: State; revision: number }): void {
    const { prev, next, revision } = change
    const { changed } = profileChanges(prev, next)
    for (const p of changed) this.profiles.set(p.id, revision)
    const live = new Set(next.profiles.map((p) => p.id))
    for (const id of [...this.profiles.keys()]) if (!live.has(id)) this.profiles.delete(id)
    if (prev.memoryUndo !== next.memoryUndo) {
      for (const [id, entry] of Object.entries(next.memoryUndo ?? {}))
        if (prev.memoryUndo?.[id] !== entry) this.undo.set(id, revision)
      for (const id of [...this.undo.keys()]) if (next.memoryUndo?.[id] === undefined) this.undo.delete(id)
    }
    this.revision = revision
  }
}
