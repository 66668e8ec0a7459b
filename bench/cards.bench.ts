/**
 * Card benchmark: what importing a Character Card costs on the host. (1) Finding the card in a 20 MiB PNG whose card
 * chunk sits after the image data, against the floor every import pays anyway (decoding the file's base64 from the
 * request). (2) A whole `profiles.importFiles` of a rich PNG card (lorebook of 200 entries), against `state.import` of
 * the same profile as our envelope. Medians of repeated runs.
 * Run: `node --experimental-strip-types bench/cards.bench.ts` (Node 22), or `npm run bench cards`.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { readPngCard } from '../lib/shared/card-png.ts'
import { factoryState } from '../lib/state/defaults.ts'
import { applyCommand } from '../lib/commands/dispatch.ts'
import { pngCard, richV2 } from '../test/support/card-fixtures.ts'
import { chunk, png, records } from '../test/support/png.ts'

function median(runs: number, fn: () => void): number {
  for (let i = 0; i < Math.min(5, runs); i++) fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    fn()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`

// (1) A 20 MiB PNG: noise in extra IDAT chunks (never decoded here), the card after them.
const base = png(64, 64)
const recs = records(base)
const noise = Array.from({ length: 20 }, () => chunk('IDAT', randomBytes(1024 * 1024 - 12)))
const big = Buffer.concat([base.subarray(0, 8), recs[0]!.record, recs[1]!.record, ...noise, recs[2]!.record])
const bigCard = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', big)
const b64 = bigCard.toString('base64')
const decode = median(20, () => {
  Buffer.from(b64, 'base64')
})
const find = median(20, () => {
  readPngCard(bigCard)
})
console.log(`20 MiB PNG card (${(bigCard.length / 1048576).toFixed(1)} MiB), chunk after IDAT`)
console.log(`  decode base64 (floor)     ${fmt(decode)}`)
console.log(`  find card + strip chunks  ${fmt(find)}  (${(find / decode).toFixed(2)}× the floor)`)

// (2) Whole import of a rich card vs the same profile as an envelope.
const card = richV2()
card.data.character_book.entries = Array.from({ length: 200 }, (_, i) => ({
  keys: [`k${i}`],
  content: `Lore entry ${i}: ${'x'.repeat(300)}`,
  extensions: {},
  enabled: true,
  insertion_order: i,
}))
const file = {
  name: 'rich.png',
  format: 'card',
  data: pngCard([{ keyword: 'chara', card }], 'after-idat', png(400, 600)).toString('base64'),
}
let n = 0
const ctx = () => ({ now: 1, newId: (p: string) => `${p}-${++n}` })
const state = factoryState(1)
const viaCard = applyCommand(state, { op: 'profiles.importFiles', files: [file] }, ctx())
const imported = viaCard.state.profiles.at(-1)!
const envelope = { format: 'dsh-agent-profiles', version: 1, exportedAt: '', activeId: '', profiles: [imported] }
const cardMs = median(50, () => {
  applyCommand(state, { op: 'profiles.importFiles', files: [file] }, ctx())
})
const envMs = median(50, () => {
  applyCommand(state, { op: 'state.import', payload: envelope, mode: 'merge' }, ctx())
})
console.log(`rich PNG card (${(file.data.length / 1024).toFixed(0)} KB base64, 200 lore entries) → one profile`)
console.log(`  state.import of the same profile as an envelope  ${fmt(envMs)}`)
console.log(
  `  profiles.importFiles of the card                 ${fmt(cardMs)}  (${(cardMs / envMs).toFixed(2)}× the envelope)`,
)
