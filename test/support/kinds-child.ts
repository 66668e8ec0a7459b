/**
 * A store in a child process for the item columns' spec (`node --experimental-strip-types test/support/kinds-child.ts
 * <file> <rows per step>`): open the store, whose background job fills the item columns a few rows per step, and
 * print `opened` once it is open, until the parent kills it.
 */
import { openStore } from '../../lib/store/open-store.ts'

const [file, batch] = process.argv.slice(2) as [string, string]
await openStore({ file, kindsBatch: Number(batch) })
process.stdout.write('opened\n')
setInterval(() => undefined, 1_000)
