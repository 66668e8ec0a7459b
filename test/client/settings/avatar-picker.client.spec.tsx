import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AvatarPicker } from '../../../lib/client/settings/AvatarPicker.tsx'
import { MAX_INPUT_BYTES, type ShrunkImage } from '../../../lib/client/settings/image.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { button, chooseFile, cleanup, click, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const fileOf = (name: string, type: string, size = 100): File => {
  const f = new File(['x'], name, { type })
  Object.defineProperty(f, 'size', { value: size })
  return f
}

function Harness({
  initial = '',
  onValue,
  shrink,
}: {
  initial?: string
  onValue?: (v: string) => void
  shrink?: (f: File) => Promise<ShrunkImage>
}) {
  const [value, setValue] = useState(initial)
  return (
    <AvatarPicker
      value={value}
      emoji="🦊"
      name="狐狸"
      onChange={(v) => {
        setValue(v)
        onValue?.(v)
      }}
      {...(shrink === undefined ? {} : { shrink })}
    />
  )
}

describe('AvatarPicker', () => {
  it('shows the emoji and the picker when there is no avatar', async () => {
    const { container } = await render(<Harness />)
    expect(container.querySelector('[data-avatar-state="emoji"]')!.textContent).toBe('🦊')
    expect(button('选择图片', container)).toBeTruthy()
    expect(text(container)).toContain('浏览器内缩到最长边 512 像素')
    expect(text(container)).not.toContain('移除头像')
    expect(container.querySelector('input[type="file"]')!.getAttribute('accept')).toBe(
      'image/png,image/jpeg,image/webp,image/gif',
    )
  })

  it('puts the shrunk picture into the draft and shows its size', async () => {
    const onValue = vi.fn()
    const shrink = vi.fn(async () => ({
      dataUrl: 'data:image/webp;base64,UklGRg==',
      width: 512,
      height: 384,
      bytes: 43_008,
    }))
    const { container } = await render(<Harness onValue={onValue} shrink={shrink} />)
    const photo = fileOf('photo.png', 'image/png', 3_000_000)
    await chooseFile(container.querySelector('input[type="file"]')!, photo)
    expect(shrink).toHaveBeenCalledWith(photo)
    expect(onValue).toHaveBeenCalledWith('data:image/webp;base64,UklGRg==')
    expect(container.querySelector('img')!.getAttribute('src')).toBe('data:image/webp;base64,UklGRg==')
    expect(text(container.querySelector('[role="status"]')!)).toBe('已压缩为 512×384 像素，42.0 KB')
    expect(button('更换图片', container)).toBeTruthy()
  })

  it('refuses SVG with the reason, leaving the avatar as it was', async () => {
    const onValue = vi.fn()
    const { container } = await render(<Harness initial="/__ap/avatar/p1?v=1" onValue={onValue} />)
    await chooseFile(container.querySelector('input[type="file"]')!, fileOf('logo.svg', 'image/svg+xml'))
    expect(text(container.querySelector('[role="alert"]')!)).toBe(
      '不支持 SVG 图片（SVG 可以携带脚本）。请选择 PNG、JPEG、WebP 或 GIF。',
    )
    expect(onValue).not.toHaveBeenCalled()
    expect(container.querySelector('img')!.getAttribute('src')).toBe('/__ap/avatar/p1?v=1')
  })

  it('refuses an oversize file with its size and the limit', async () => {
    const { container } = await render(<Harness />)
    await chooseFile(
      container.querySelector('input[type="file"]')!,
      fileOf('huge.jpg', 'image/jpeg', MAX_INPUT_BYTES + 5 * 1024 * 1024),
    )
    expect(text(container.querySelector('[role="alert"]')!)).toBe('文件太大：25.0 MB，上限 20.0 MB。')
  })

  it('refuses other file types by name', async () => {
    const { container } = await render(<Harness />)
    await chooseFile(container.querySelector('input[type="file"]')!, fileOf('a.bmp', 'image/bmp'))
    expect(text(container.querySelector('[role="alert"]')!)).toContain('不支持的文件类型「image/bmp」')
  })

  it("says in the user's language that a picture the browser cannot open was not taken, not the browser's words", async () => {
    // The browser refuses to decode it (jsdom has no decoder at all): a real shrink, not a stub.
    const decode = vi.fn(async () => {
      throw new DOMException('The source image could not be decoded.', 'InvalidStateError')
    })
    vi.stubGlobal('createImageBitmap', decode)
    try {
      const { container } = await render(<Harness />)
      await chooseFile(container.querySelector('input[type="file"]')!, fileOf('broken.png', 'image/png'))
      expect(decode).toHaveBeenCalledOnce()
      expect(text(container.querySelector('[role="alert"]')!)).toBe(
        '这个文件无法作为图片打开：可能已损坏，或是浏览器读不了的格式。请选 PNG、JPEG、WebP 或 GIF。',
      )
      await cleanup()
      const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
      try {
        const en = await render(<Harness />)
        await chooseFile(en.container.querySelector('input[type="file"]')!, fileOf('broken.png', 'image/png'))
        const shown = text(en.container.querySelector('[role="alert"]')!)
        expect(shown).toMatch(/^This file could not be opened as a picture/)
        expect(shown).not.toContain('decoded')
      } finally {
        unbind()
      }
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('removes the avatar, back to the emoji', async () => {
    const onValue = vi.fn()
    const { container } = await render(<Harness initial="/__ap/avatar/p1?v=1" onValue={onValue} />)
    await click(button('移除头像', container))
    expect(onValue).toHaveBeenCalledWith('')
    expect(container.querySelector('img')).toBeNull()
    expect(container.querySelector('[data-avatar-state="emoji"]')!.textContent).toBe('🦊')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Harness />)
      expect(button('Choose image', container)).toBeTruthy()
      await chooseFile(container.querySelector('input[type="file"]')!, fileOf('x.svg', 'image/svg+xml'))
      expect(text(container)).toContain('SVG images are not accepted')
    } finally {
      unbind()
    }
  })
})
