import { act, useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { tabStep, Tabs } from '../../../lib/client/settings/Tabs.tsx'
import { cleanup, click, render, tab, text, type } from '../../support/dom.tsx'

afterEach(cleanup)

type Id = 'one' | 'two' | 'three'

/** Three tabs, the second holding a text box, with the selection kept here as the page keeps it. */
function Harness({ mark }: { mark?: boolean }) {
  const [selected, setSelected] = useState<Id>('one')
  return (
    <Tabs<Id>
      label="分区"
      selected={selected}
      onSelect={setSelected}
      tabs={[
        { id: 'one', label: '第一', panel: <p>第一面</p> },
        {
          id: 'two',
          label: '第二',
          ...(mark === true ? { mark: '有改动' } : {}),
          panel: <input aria-label="草稿" defaultValue="" />,
        },
        { id: 'three', label: '第三', panel: <p>第三面</p> },
      ]}
    />
  )
}

const press = async (el: Element, key: string): Promise<void> => {
  await act(async () => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }))
  })
}
const tabs = (c: HTMLElement) => [...c.querySelectorAll<HTMLElement>('[role="tab"]')]
const shown = (c: HTMLElement) =>
  [...c.querySelectorAll<HTMLElement>('[role="tabpanel"]')].filter((p) => !p.hidden).map((p) => text(p))

describe('Tabs', () => {
  it('is a labelled tablist whose selected tab alone is in the Tab order and names its panel', async () => {
    const { container } = await render(<Harness />)
    expect(container.querySelector('[role="tablist"]')!.getAttribute('aria-label')).toBe('分区')
    expect(tabs(container).map((t) => [text(t), t.getAttribute('aria-selected'), t.tabIndex])).toEqual([
      ['第一', 'true', 0],
      ['第二', 'false', -1],
      ['第三', 'false', -1],
    ])
    const panel = container.querySelector<HTMLElement>('[role="tabpanel"]')!
    expect(panel.getAttribute('aria-labelledby')).toBe(tabs(container)[0]!.id)
    expect(tabs(container)[0]!.getAttribute('aria-controls')).toBe(panel.id)
    expect(shown(container)).toEqual(['第一面'])
  })

  it('moves with the arrow keys, Home and End, wrapping around, and keeps focus on the tab it moved to', async () => {
    const { container } = await render(<Harness />)
    tabs(container)[0]!.focus()
    await press(document.activeElement!, 'ArrowRight')
    expect(document.activeElement).toBe(tab('第二', container))
    expect(tab('第二', container).getAttribute('aria-selected')).toBe('true')
    await press(document.activeElement!, 'End')
    expect(document.activeElement).toBe(tab('第三', container))
    await press(document.activeElement!, 'ArrowRight')
    expect(document.activeElement).toBe(tab('第一', container))
    await press(document.activeElement!, 'ArrowLeft')
    expect(document.activeElement).toBe(tab('第三', container))
    await press(document.activeElement!, 'Home')
    expect(document.activeElement).toBe(tab('第一', container))
    expect(shown(container)).toEqual(['第一面'])
    expect(tabs(container).map((t) => t.tabIndex)).toEqual([0, -1, -1])
  })

  it('keeps a visited panel mounted and only hidden, so what was typed there is still there on return', async () => {
    const { container } = await render(<Harness />)
    expect(container.querySelectorAll('[role="tabpanel"]')).toHaveLength(1)
    await click(tab('第二', container))
    await type(container.querySelector<HTMLInputElement>('[aria-label="草稿"]')!, '还没保存的字')
    await click(tab('第三', container))
    expect(shown(container)).toEqual(['第三面'])
    await click(tab('第二', container))
    expect(container.querySelector<HTMLInputElement>('[aria-label="草稿"]')!.value).toBe('还没保存的字')
  })

  it("shows a mark after a label and reads it as part of the tab's name", async () => {
    const { container } = await render(<Harness mark />)
    expect(text(tab('第二', container))).toBe('第二 • (有改动)')
    expect(tab('第二', container).querySelector('[aria-hidden="true"]')!.textContent).toBe(' •')
  })

  it('leaves keys other than the arrows, Home and End to the page', () => {
    expect(tabStep('ArrowRight', 2, 3)).toBe(0)
    expect(tabStep('ArrowLeft', 0, 3)).toBe(2)
    expect(tabStep('Enter', 1, 3)).toBeUndefined()
    expect(tabStep('Tab', 1, 3)).toBeUndefined()
  })
})
