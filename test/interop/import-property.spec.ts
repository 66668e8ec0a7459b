/**
 * Property test of every importer (Markdown with front matter, card JSON, role files, PNG cards, CHARX, envelopes):
 * fast-check feeds `profiles.importFiles` generated hostile input — long runs of each punctuation character in every
 * place a pattern reads, deep nesting, many chunks or entries, random bytes behind valid signatures — and every
 * import must end as an answer or a refusal (a StoreError naming a field), within a time and a memory bound. The
 * bounds are functional (a parser that backtracks or allocates per claimed entry takes seconds and gigabytes, far
 * past them), not speed claims: speed is bench/import-hostile.bench.ts's. Seeded as every random test is
 * (test/support/fuzz.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyCommand } from '../../lib/commands/dispatch.ts'
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import { PNG_SIGNATURE } from '../../lib/shared/png.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import { WARNING_LIMIT } from '../../lib/interop/bounds.ts'
import { richV2, zip } from '../support/card-fixtures.ts'
import { binaryFile, claimingZip, textFile } from '../support/hostile-files.ts'
import { chunk, png } from '../support/png.ts'
import { fcParams } from '../support/fuzz.ts'
import { StoreError } from '../../lib/shared/errors.ts'

/** Wall time one import may take: the report's cases took 2–20 s (and an out-of-memory abort) before the fix. */
const TIME_BOUND_MS = 3_000
/** Heap and buffer growth one import may cause: the report's worst case grew past 4.9 GB. */
const MEMORY_BOUND = 512 * 1024 * 1024

let n = 0
const ctx = () => ({ now: 1_700_000_000_000, newId: (prefix: string) => `${prefix}${++n}` })

/**
 * Import `file` into factory state, asserting the bounds: an answer with its warnings capped, or a refusal of the
 * importers' own (a StoreError naming the file's field); anything else thrown fails.
 */
function importWithin(file: ImportFile): void {
  const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
  const before = used()
  const started = performance.now()
  try {
    const r = applyCommand(factoryState(1_700_000_000_000), { op: 'profiles.importFiles', files: [file] }, ctx())
    expect((r.extra as { files: { warnings: string[] }[] }).files[0]!.warnings.length).toBeLessThanOrEqual(
      WARNING_LIMIT + 1,
    )
  } catch (e) {
    if (!(e instanceof StoreError)) throw e
    expect(e.field).toMatch(/^files\[0\]/)
    // A refusal of the importers' own, never an exception they did not expect (caught and worded "could not be read").
    expect(e.message).not.toContain('could not be read')
  }
  const ms = performance.now() - started
  expect(ms, `${file.name} took ${ms.toFixed(0)} ms`).toBeLessThan(TIME_BOUND_MS)
  expect(used() - before, `${file.name} grew the heap`).toBeLessThan(MEMORY_BOUND)
}

const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ \t', '：', '｜', '　', '…', '\u200d', '\u202e', '\ud800']
/** A long run of one punctuation character (or space), the input a backtracking pattern chokes on. */
const run = fc
  .tuple(fc.constantFrom(...PUNCTUATION), fc.integer({ min: 1_000, max: 60_000 }))
  .map(([c, k]) => c.repeat(k))
const words = fc.string({ maxLength: 8 })

/** Every place of a Markdown file a pattern reads, with a long run in it. */
const markdownFile = fc
  .tuple(
    run,
    words,
    fc.constantFrom(
      (r: string, w: string) => `# ${w}${r}${w}\n\ntext\n`,
      (r: string, w: string) => `## ${w}${r}${w}\n\ntext\n`,
      (r: string, w: string) => `## ${w} ${r} #\n${r}\n`,
      (r: string, w: string) => `---\nname: ${w}${r}\n---\n## Role\n${r}\n`,
      (r: string, w: string) => `---\ntools: "${w}${r}"\n---\nbody\n`,
      (r: string, w: string) => `---\n${r}: ${w}\n---\nbody\n`,
      (r: string, w: string) => `---\ndescription: ${r}\n${w}\n---\n${r}`,
      (r: string, w: string) => `## Memory\n- ${w}${r}\n  ${r}\n${'```'}${r}\n`,
      (r: string) => `${r}\n# ${r}\n${r}`,
    ),
  )
  .map(([r, w, make]) => textFile('run.md', make(r, w)))

/** Card JSON with a long run as a name, a text, a key, a speaking cue, a macro, a tool list, a base64-ish chunk. */
const cardFile = fc
  .tuple(run, fc.constantFrom('name', 'description', 'personality', 'mes_example', 'key', 'book', 'raw'))
  .map(([r, where]) => {
    const c = richV2()
    if (where === 'key') c.data[r.slice(0, 5_000)] = r
    else if (where === 'book') c.data.character_book = { entries: [{ content: `{{char}}${r}{{user}}`, keys: [r] }] }
    else if (where === 'raw')
      return textFile('raw.json', `{"name":${JSON.stringify(r)},"systemPrompt":"x${JSON.stringify(r).slice(1)}`, 'card')
    else c.data[where] = `Speech:${r}\n${r}:\n- tone ${r}`
    return textFile('run.json', JSON.stringify(c), 'card')
  })

/** Nesting of arrays, objects or YAML flow collections, shallow to far past any limit. */
const nested = fc
  .tuple(fc.integer({ min: 1, max: 300_000 }), fc.constantFrom('[', '{"a":', '{'))
  .chain(([depth, open]) =>
    fc.constantFrom(
      textFile('deep.json', `{"description":"x","x":${open.repeat(depth)}`, 'card'),
      textFile('deep.json', `{"description":"x","x":${'['.repeat(depth)}${']'.repeat(depth)}}`, 'card'),
      textFile(
        'deep.json',
        `{"format":"dsh-agent-profiles","version":1,"profiles":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        'envelope',
      ),
      textFile('deep.md', `---\na: ${open.replace('"a":', '').repeat(Math.min(depth, 20_000))}\n---\nbody\n`),
    ),
  )

/** A PNG of many chunks: card chunks that hold nothing, junk chunks, or chunks with lengths past the file. */
const manyChunks = fc
  .tuple(fc.integer({ min: 100, max: 60_000 }), fc.constantFrom('chara\0!', 'ccv3\0{', 'Title\0x', 'chara\0e30='))
  .map(([count, text]) => {
    const pic = png(4, 4, 2)
    const one = chunk('tEXt', Buffer.from(text, 'latin1'))
    return binaryFile(
      'chunks.png',
      Buffer.concat([pic.subarray(0, -12), Buffer.alloc(one.length * count).fill(one), pic.subarray(-12)]),
    )
  })

/** Zips claiming from a few to four billion entries, and real zips of many small entries. */
const manyEntries = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((count) => binaryFile('claims.charx', claimingZip(count))),
  fc
    .integer({ min: 1, max: 3_000 })
    .map((count) =>
      binaryFile('many.charx', zip(Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, 'x'])), 0)),
    ),
)

/** Random bytes behind each signature an importer trusts: PNG, zip local header, zip end record, JSON. */
const signed = fc
  .tuple(fc.uint8Array({ minLength: 0, maxLength: 200_000 }), fc.constantFrom('png', 'zip', 'end', 'json'))
  .map(([bytes, kind]) => {
    const body = Buffer.from(bytes)
    if (kind === 'png') return binaryFile('random.png', Buffer.concat([PNG_SIGNATURE, body]))
    if (kind === 'zip') return binaryFile('random.charx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), body]))
    if (kind === 'end')
      return binaryFile(
        'random.charx',
        Buffer.concat([
          Buffer.from([0x50, 0x4b, 0x03, 0x04]),
          body,
          Buffer.from([0x50, 0x4b, 0x05, 0x06]),
          body.subarray(0, 18),
        ]),
      )
    return textFile('random.json', `{${body.toString('latin1')}`, 'card')
  })

describe('every importer, fed hostile input, ends within its bounds', () => {
  const property = (name: string, input: fc.Arbitrary<ImportFile>, runs: number) => {
    it(
      name,
      () => {
        fc.assert(
          fc.property(input, (file) => importWithin(file)),
          fcParams(runs),
        )
      },
      120_000,
    )
  }
  property('Markdown and front matter with long runs of each punctuation character', markdownFile, 60)
  property('card JSON with long runs in every field a pattern reads', cardFile, 40)
  property('deep nesting in card JSON, envelopes and front matter', nested, 30)
  property('PNG cards of many chunks', manyChunks, 15)
  property('CHARX claiming or holding many entries', manyEntries, 15)
  property('random bytes behind valid signatures', signed, 60)
})
