/**
 * A store in a child process for the re-terming spec (`node --experimental-strip-types test/support/reterm-child.ts
 * <file> <items per step>`): open the store, whose background job re-terms the search index a few items per step,
 * and print `progress <items done>` whenever Diagnostics' figure moves, until the parent kills it.
 */
import { indexFigures } from '../../lib/memory/index-size.ts'
import { openStore } from '../../lib/store/open-store.ts'

const [file, batch] = process.argv.slice(2) as [string, string]
const store = await openStore({ file, retermBatch: Number(batch) })
let said = -1
setInterval(() => {
  const done = indexFigures(store).reterm?.done ?? -1
  if (done !== said) process.stdout.write(`progress ${done}\n`)
  said = done
}, 5)
