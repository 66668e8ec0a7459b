/**
 * A model of the host's slot registry for the jsdom specs, following its behaviour as
 * read in the host's `packages/client/ui-slots/src/index.ts` at rc.8: registering into an undeclared slot throws; a
 * keyed cell holds entries sorted by ascending priority (default 0) and the lowest renders; a second entry at the
 * same priority throws; `entries()` lists the ledger; `subscribe` is batched per microtask; collapsing a slot drops
 * its entries; `inject` runs its setup while the slot is declared. The real registry ships only inside the host's
 * web bundle, so test/e2e/switcher.e2e.spec.ts checks the real one in Chromium.
 */

/** One registration as `entries()` lists it. */
export interface ModelEntry {
  component: unknown
  options: { key?: string; id?: string; priority?: number }
  locale?: string
}

/** Registration options (the part the model reads). */
export interface ModelOptions {
  name: string
  key?: string
  id?: string
  priority?: number
  locale?: string
}

/** The model registry; its public face matches the plugin's `ApSlots`. */
export class SlotModel {
  readonly #kinds = new Map<string, 'keyed' | 'list' | 'chain'>()
  readonly #entries = new Map<string, ModelEntry[]>()
  readonly #listeners = new Map<string, Set<() => void>>()
  readonly #declarations = new Map<string, Set<() => void>>()
  readonly #dirty = new Set<string>()

  /** Declare `key` (as a parent entry's children table does); the returned function collapses it. */
  declare(key: string, kind: 'keyed' | 'list' | 'chain'): () => void {
    if (this.#kinds.has(key)) throw new Error(`slot "${key}" is already declared`)
    this.#kinds.set(key, kind)
    for (const fn of [...(this.#declarations.get(key) ?? [])]) fn()
    return () => {
      this.#kinds.delete(key)
      this.#entries.delete(key)
      this.#changed(key)
      for (const fn of [...(this.#declarations.get(key) ?? [])]) fn()
    }
  }

  register(options: ModelOptions, component: unknown): () => void {
    const kind = this.#kinds.get(options.name)
    if (kind === undefined) throw new Error(`slot "${options.name}" is not declared`)
    const priority = options.priority ?? 0
    const list = this.#entries.get(options.name) ?? []
    if (kind !== 'chain') {
      const cell = kind === 'keyed' ? options.key : options.id
      if (cell === undefined)
        throw new Error(`${kind} slot "${options.name}" requires a ${kind === 'keyed' ? 'key' : 'id'}`)
      const clash = list.find(
        (e) => (kind === 'keyed' ? e.options.key : e.options.id) === cell && (e.options.priority ?? 0) === priority,
      )
      if (clash !== undefined)
        throw new Error(`${kind} slot "${options.name}" already has an entry for "${cell}" at priority ${priority}`)
    }
    const entry: ModelEntry = {
      component,
      options: {
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(options.id === undefined ? {} : { id: options.id }),
        ...(options.priority === undefined ? {} : { priority: options.priority }),
      },
      ...(options.locale === undefined ? {} : { locale: options.locale }),
    }
    this.#entries.set(
      options.name,
      [...list, entry].sort((a, b) => (a.options.priority ?? 0) - (b.options.priority ?? 0)),
    )
    this.#changed(options.name)
    return () => {
      const now = this.#entries.get(options.name)
      if (now === undefined || !now.includes(entry)) return
      this.#entries.set(
        options.name,
        now.filter((e) => e !== entry),
      )
      this.#changed(options.name)
    }
  }

  entries(key: string): readonly ModelEntry[] {
    return this.#entries.get(key) ?? []
  }

  /** The entry that renders the keyed cell `cell` of `key`: the lowest priority. */
  winner(key: string, cell: string): ModelEntry | undefined {
    return this.entries(key).find((e) => e.options.key === cell)
  }

  subscribe(key: string, fn: () => void): () => void {
    const set = this.#listeners.get(key) ?? new Set()
    this.#listeners.set(key, set)
    set.add(fn)
    return () => {
      set.delete(fn)
    }
  }

  inject(key: string, setup: () => () => void): () => void {
    let active: (() => void) | undefined
    const reconcile = (): void => {
      const declared = this.#kinds.has(key)
      if (declared && active === undefined) active = setup()
      if (!declared && active !== undefined) {
        active()
        active = undefined
      }
    }
    const set = this.#declarations.get(key) ?? new Set()
    this.#declarations.set(key, set)
    set.add(reconcile)
    reconcile()
    return () => {
      set.delete(reconcile)
      active?.()
      active = undefined
    }
  }

  #changed(key: string): void {
    if (this.#dirty.size === 0) {
      queueMicrotask(() => {
        const keys = [...this.#dirty]
        this.#dirty.clear()
        for (const k of keys) for (const fn of [...(this.#listeners.get(k) ?? [])]) fn()
      })
    }
    this.#dirty.add(key)
  }
}
