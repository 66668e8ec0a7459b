/**
 * The files of the store's state as the sync writes them, with their git blob ids, kept per profile object: the
 * store's snapshots are immutable and share every profile that did not change, so after a saved fact only that
 * profile's files are written and hashed again. The cost of a sync's look at the store follows the change, not the
 * size of the memory (each item's line is kept too: only new items are written as JSON again; the file is still joined
 * and hashed whole, which git's blob id needs). It never writes anything.
 */
import { USER_HISTORY, type MemoryItem, type MemoryWrite, type Profile, type State } from '../state/model.ts'
import { folderOf, itemLine, memoryLines, profileFiles, USER_FILE } from './layout.ts'
import { blobId } from './repo.ts'

/** A file's text and its git blob id. */
export interface HashedFile {
  text: string
  id: string
}

const EMPTY: readonly MemoryWrite[] = []

/** The files of each state, computed once per profile object. */
export class StateFiles {
  #profiles = new WeakMap<Profile, { history: readonly MemoryWrite[]; files: [string, HashedFile][] }>()
  #user: { items: readonly MemoryItem[]; history: readonly MemoryWrite[]; file?: HashedFile } | undefined
  /** Each item's line, by the item object: a pulled or saved fact makes a new list, but only its new items are written again. */
  readonly #lines = new WeakMap<MemoryItem, string>()
  readonly #line = (it: MemoryItem): string => {
    let line = this.#lines.get(it)
    if (line === undefined) {
      line = itemLine(it)
      this.#lines.set(it, line)
    }
    return line
  }

  /** Every file of what travels in `state`, by path. */
  of(state: State): Map<string, HashedFile> {
    const out = new Map<string, HashedFile>()
    for (const p of state.profiles) {
      const history = state.history?.[p.id] ?? EMPTY
      let cached = this.#profiles.get(p)
      if (cached === undefined || cached.history !== history) {
        const folder = folderOf(p.id)
        cached = {
          history,
          files: Object.entries(profileFiles(p, history, this.#line)).map(([name, text]) => [
            `${folder}/${name}`,
            { text, id: blobId(text) },
          ]),
        }
        this.#profiles.set(p, cached)
      }
      for (const [path, f] of cached.files) out.set(path, f)
    }
    const items = state.user?.items ?? []
    const history = state.history?.[USER_HISTORY] ?? EMPTY
    if (this.#user === undefined || this.#user.items !== items || this.#user.history !== history) {
      const text = memoryLines(items, history, this.#line)
      this.#user = text === '' ? { items, history } : { items, history, file: { text, id: blobId(text) } }
    }
    if (this.#user.file !== undefined) out.set(USER_FILE, this.#user.file)
    return out
  }
}
