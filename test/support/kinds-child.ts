/**
 * A store in a child process for the specs of the rows' background fills (`node --experimental-strip-types
 * test/support/kinds-child.ts <file> <rows per step>`): open the store, whose background jobs fill the item columns
 * and the text keys a few rows per step, and print `opened` once it is open, until the parent kills it.
 */
import { openStore } from '../../lib/store/open-store.ts'

const [file, batch] = process.argv.slice(2) as [string, string]
await openStore({ file, kindsBatch: Number(batch), textKeysBatch: Number(batch) })
process.stdout.write('opened\n')
setInterval(() => undefined, 1_000)
