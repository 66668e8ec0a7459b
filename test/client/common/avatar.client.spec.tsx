import { act } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { Avatar, DEFAULT_EMOJI } from '../../../lib/client/common/Avatar.tsx'
import { cleanup, render } from '../../support/dom.tsx'

afterEach(cleanup)

describe('Avatar (three states)', () => {
  it('shows the image when one is set', async () => {
    const { container } = await render(<Avatar src="/__ap/avatar/p1?v=aa" emoji="🦊" label="狐狸" size={44} />)
    const img = container.querySelector('img')!
    expect(img.getAttribute('src')).toBe('/__ap/avatar/p1?v=aa')
    expect(img.alt).toBe('狐狸')
    expect(img.width).toBe(44)
    expect(container.textContent).not.toContain('🦊')
  })

  it('shows the emoji on a round badge when no image is set', async () => {
    const { container } = await render(<Avatar src="" emoji="🦊" label="狐狸" />)
    expect(container.querySelector('img')).toBeNull()
    const badge = container.querySelector('[data-avatar-state="emoji"]')!
    expect(badge.textContent).toBe('🦊')
    expect(badge.getAttribute('aria-label')).toBe('狐狸')
  })

  it('shows a default emoji when the profile has neither', async () => {
    const { container } = await render(<Avatar src="" emoji="  " />)
    expect(container.textContent).toBe(DEFAULT_EMOJI)
  })

  it('falls back to the emoji when the image fails, and remembers that per image URL', async () => {
    const { container } = await render(<Avatar src="/__ap/avatar/p2?v=bad" emoji="🐱" />)
    await act(async () => {
      container.querySelector('img')!.dispatchEvent(new Event('error'))
    })
    expect(container.querySelector('img')).toBeNull()
    expect(container.querySelector('[data-avatar-state="broken"]')!.textContent).toBe('🐱')

    // Shown again elsewhere, the broken URL goes straight to the emoji: no broken-image icon flashes.
    const again = await render(<Avatar src="/__ap/avatar/p2?v=bad" emoji="🐱" />)
    expect(again.container.querySelector('img')).toBeNull()

    // A new picture for the same profile is not hidden by the old failure.
    const fresh = await render(<Avatar src="/__ap/avatar/p2?v=new" emoji="🐱" />)
    expect(fresh.container.querySelector('img')!.getAttribute('src')).toBe('/__ap/avatar/p2?v=new')
  })
})
