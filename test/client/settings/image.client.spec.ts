import { describe, expect, it } from 'vitest'
import { checkImageFile, fitWithin, MAX_INPUT_BYTES } from '../../../lib/client/settings/image.ts'

describe('avatar file checks', () => {
  it('accepts PNG, JPEG, WebP and GIF', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp', 'image/gif']) {
      expect(checkImageFile({ name: 'a', type, size: 1000 })).toBeNull()
    }
  })

  it('refuses SVG by type or by name, before anything is decoded', () => {
    expect(checkImageFile({ name: 'logo.svg', type: 'image/svg+xml', size: 10 })).toEqual({ kind: 'svg' })
    expect(checkImageFile({ name: 'logo.SVG', type: '', size: 10 })).toEqual({ kind: 'svg' })
  })

  it('refuses other types, naming them', () => {
    expect(checkImageFile({ name: 'a.bmp', type: 'image/bmp', size: 10 })).toEqual({ kind: 'type', type: 'image/bmp' })
    expect(checkImageFile({ name: 'notes.txt', type: '', size: 10 })).toEqual({ kind: 'type', type: 'notes.txt' })
  })

  it('refuses files over the input limit with the size and the limit', () => {
    expect(checkImageFile({ name: 'big.jpg', type: 'image/jpeg', size: MAX_INPUT_BYTES + 1 })).toEqual({
      kind: 'tooLarge',
      size: MAX_INPUT_BYTES + 1,
      limit: MAX_INPUT_BYTES,
    })
  })
})

describe('fitWithin', () => {
  it('shrinks the longest side to 512 px keeping the aspect ratio', () => {
    expect(fitWithin(4032, 3024)).toEqual({ width: 512, height: 384 })
    expect(fitWithin(1000, 3000)).toEqual({ width: 171, height: 512 })
  })

  it('never enlarges a small picture', () => {
    expect(fitWithin(64, 48)).toEqual({ width: 64, height: 48 })
  })
})
