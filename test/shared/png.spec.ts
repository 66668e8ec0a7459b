/**
 * PNG chunk handling: the walk reads every chunk (also after the image data and after IEND), tolerates wrong CRCs and
 * files cut short, tEXt chunks round-trip, and a rewrite keeps every chunk it does not touch byte for byte. The
 * reference PNGs and CRCs come from node:zlib, not from the code under test.
 */
import { crc32 as zlibCrc32, inflateSync } from 'node:zlib'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { chunkBytes, crc32, isPng, readText, rewritePng, textChunk, walkPng } from '../../lib/shared/png.ts'
import { chunk, png, records } from '../support/png.ts'
import { PngError } from '../../lib/shared/errors.ts'

const chunk0 = (type: string) => chunk(type, Buffer.alloc(0))

describe('crc32', () => {
  it('matches zlib on random data of many sizes', () => {
    for (const n of [0, 1, 7, 64, 1000, 65_537]) {
      const data = randomBytes(n)
      expect(crc32(data)).toBe(zlibCrc32(data))
    }
  })
})

describe('walkPng', () => {
  it('lists the chunks of a real PNG in order with good CRCs', () => {
    const file = png(8, 4)
    const { chunks, truncated } = walkPng(file)
    expect(truncated).toBeUndefined()
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect(chunks.map((c) => [c.start, c.end])).toEqual(
      records(file).map((r) => [file.indexOf(r.record), file.indexOf(r.record) + r.record.length]),
    )
    expect(inflateSync(Buffer.from(chunks[1]!.data)).length).toBe(4 * (8 * 3 + 1))
  })

  it('finds chunks after IDAT and after IEND', () => {
    const [sig, ...rest] = [png(4, 4).subarray(0, 8), ...records(png(4, 4)).map((r) => r.record)]
    const file = Buffer.concat([sig!, ...rest, chunk('tEXt', Buffer.from('late\0after iend', 'latin1'))])
    const { chunks } = walkPng(file)
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND', 'tEXt'])
    expect(readText(chunks[3]!)).toEqual({ keyword: 'late', text: 'after iend' })
  })

  it('walks on past a chunk with a wrong CRC, as card readers must', () => {
    const file = Buffer.from(png(4, 4))
    const idat = records(file).find((r) => r.type === 'IDAT')!
    const crcAt = file.indexOf(idat.record) + idat.record.length - 1
    file[crcAt] = file[crcAt]! ^ 0xff
    expect(walkPng(file).chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
  })

  it('keeps the chunks before a cut and says where the file ends', () => {
    const file = png(16, 16)
    const idat = records(file).find((r) => r.type === 'IDAT')!
    const cut = file.subarray(0, file.indexOf(idat.record) + 20)
    const { chunks, truncated } = walkPng(cut)
    expect(chunks.map((c) => c.type)).toEqual(['IHDR'])
    expect(truncated).toMatch(/IDAT chunk .* cut short/)
  })

  it('refuses bytes that are not a PNG', () => {
    expect(isPng(Buffer.from('GIF89a……'))).toBe(false)
    expect(() => walkPng(Buffer.from('{"spec":"chara_card_v2"}'))).toThrow(PngError)
  })
})

describe('tEXt chunks', () => {
  it('round-trip keyword and Latin-1 text, and match a zlib-made chunk exactly', () => {
    const made = textChunk('chara', 'eyJhIjoxfQ==')
    expect(Buffer.from(made)).toEqual(chunk('tEXt', Buffer.from('chara\0eyJhIjoxfQ==', 'latin1')))
    const { chunks } = walkPng(Buffer.concat([png(2, 2).subarray(0, 8), Buffer.from(made)]))
    expect(readText(chunks[0]!)).toEqual({ keyword: 'chara', text: 'eyJhIjoxfQ==' })
  })

  it('refuses a bad keyword and text outside Latin-1', () => {
    expect(() => textChunk('', 'x')).toThrow(PngError)
    expect(() => textChunk('k'.repeat(80), 'x')).toThrow(PngError)
    expect(() => textChunk('chara', '角色')).toThrow(/Latin-1/)
  })

  it('reads nothing from a chunk that is not tEXt or has no keyword', () => {
    expect(readText({ type: 'iTXt', data: Buffer.from('chara\0x') })).toBeUndefined()
    expect(readText({ type: 'tEXt', data: Buffer.from('\0x') })).toBeUndefined()
  })
})

describe('rewritePng', () => {
  it('inserts before IEND and keeps every other chunk byte for byte', () => {
    const file = png(6, 3)
    const out = Buffer.from(rewritePng(file, () => false, [textChunk('note', 'hi')]))
    const before = records(file)
    const after = records(out)
    expect(after.map((r) => r.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'IEND'])
    expect(after[0]!.record).toEqual(before[0]!.record)
    expect(after[1]!.record).toEqual(before[1]!.record)
    expect(out.subarray(0, 8)).toEqual(file.subarray(0, 8))
  })

  it('drops the chunks selected and gives back the original file when nothing else changes', () => {
    const file = png(6, 3)
    const withText = rewritePng(file, () => false, [textChunk('chara', 'AAAA')])
    const back = rewritePng(withText, (c) => readText(c)?.keyword === 'chara')
    expect(Buffer.from(back)).toEqual(file)
  })

  it('ends a file that has no IEND with the new chunks and a fresh IEND', () => {
    const file = png(4, 4)
    const noEnd = file.subarray(0, file.length - 12)
    const out = walkPng(rewritePng(noEnd, () => false, [chunkBytes('tEXt', Buffer.from('a\0b'))]))
    expect(out.chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'IEND'])
    const iend = records(Buffer.from(rewritePng(noEnd, () => false))).at(-1)!
    expect(iend.record).toEqual(chunk0('IEND'))
  })
})
