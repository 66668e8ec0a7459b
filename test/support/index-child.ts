/**
 * A store in a child process for the index specs (`node --experimental-strip-types test/support/index-child.ts
 * <file> <query>`): open the store, look `query` up in the active profile's memory through the search index, try one
 * write, and print as one JSON line which items were found, where the index lives, whether the write was refused and
 * why the store says the data is read-only.
 */
import { openStore } from '../../lib/store/open-store.ts'

const [file, query] = process.argv.slice(2) as [string, string]
const store = await openStore({ file })
const found =
  store.searchIndex((index) => ({ mode: index.mode, ids: index.containing(store.state.activeId, query) ?? [] })) ?? null
let refused: string | null = null
try {
  await store.command({ op: 'profile.update', id: store.state.activeId, patch: { rules: 'changed' } })
} catch (e) {
  refused = (e as { code?: string }).code ?? 'error'
}
const readOnly = store.readOnly ?? null
await store.close()
process.stdout.write(`${JSON.stringify({ found, refused, readOnly })}\n`)
