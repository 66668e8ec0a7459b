import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ComponentType } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { apply, inject, name } from '../../lib/client/index.ts'
import { en, zh } from '../../lib/client/copy/locales.ts'
import { SlotModel } from '../support/slot-registry.ts'
import { meta, profile, render, settle, state, stubFetch, text, wireOf } from '../support/dom.tsx'

/** A client context the way the host hands it over: slot registry, locale service, effects undone on dispose. */
function hostContext() {
  const model = new SlotModel()
  const slots = Object.assign(model, { register: vi.fn(model.register.bind(model)) })
  let active = 'zh'
  const listeners = new Set<() => void>()
  const disposers: (() => void)[] = []
  const locale = {
    getLocale: () => ({ active }),
    subscribe: (fn: () => void) => {
      listeners.add(fn)
      return () => {
        listeners.delete(fn)
      }
    },
    register: vi.fn((_ns: string, _locale: string, _dict: Record<string, string>) => () => {}),
    switchTo(next: string) {
      active = next
      for (const fn of listeners) fn()
    },
  }
  // The composer's trigger registry, refusing a second source of one name on one trigger as the host's does.
  const sources = new Map<string, { trigger: string; name: string }>([
    ['@:reference', { trigger: '@', name: 'reference' }],
  ])
  const inputTriggers = {
    registerSource(source: { trigger: string; name: string }) {
      const key = `${source.trigger}:${source.name}`
      if (sources.has(key)) throw new Error(`duplicate source ${key}`)
      sources.set(key, source)
      return () => {
        sources.delete(key)
      }
    },
  }
  const ctx = {
    effect: (run: () => () => void) => {
      disposers.push(run())
    },
    slots,
    locale,
    inputTriggers,
  }
  return {
    ctx,
    slots,
    locale,
    sources,
    dispose: () => {
      for (const d of disposers.splice(0).reverse()) d()
    },
  }
}

type SectionOptions = { name: string; id: string; order: number; label: () => string }

describe('the plugin entry', () => {
  it('is named after the package and asks only for the slots, locale and input-trigger services', () => {
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as {
      name: string
      dsh: { client: { inject: string[] } }
    }
    expect(name).toBe(pkg.name)
    expect(inject).toEqual(['slots', 'locale', 'inputTriggers'])
    expect(pkg.dsh.client.inject).toEqual(inject)
  })

  it("adds its own @ source beside the host's file references, and removes it on unload", () => {
    const host = hostContext()
    apply(host.ctx as unknown as Parameters<typeof apply>[0])
    expect([...host.sources.keys()]).toEqual(['@:reference', '@:agent-profiles'])
    host.dispose()
    expect([...host.sources.keys()]).toEqual(['@:reference'])
  })

  it('adds "Agent profiles" to the settings navigation once the settings shell declares its sections', async () => {
    const host = hostContext()
    apply(host.ctx as unknown as Parameters<typeof apply>[0])
    expect(host.slots.entries('settings.section')).toEqual([])
    host.slots.declare('settings.section', 'list')
    await settle()
    const call = host.slots.register.mock.calls.find(([o]) => o.name === 'settings.section')!
    const options = call[0] as unknown as SectionOptions
    expect(options).toMatchObject({ id: 'agent-profiles', order: 25 })
    expect(options.label()).toBe('智能体配置')
    host.locale.switchTo('en')
    expect(options.label()).toBe('Agent profiles')
    host.dispose()
  })

  it('registers both dictionaries under its namespace', () => {
    const host = hostContext()
    apply(host.ctx as unknown as Parameters<typeof apply>[0])
    expect(host.locale.register).toHaveBeenCalledWith('agent-profiles', 'zh', zh)
    expect(host.locale.register).toHaveBeenCalledWith('agent-profiles', 'en', en)
    host.dispose()
  })

  it("registers a page that shows a placeholder on its first frame, then the profiles, with the host's props", async () => {
    const host = hostContext()
    apply(host.ctx as unknown as Parameters<typeof apply>[0])
    host.slots.declare('settings.section', 'list')
    await settle()
    let answer: () => void = () => {}
    stubFetch(
      () =>
        new Promise((resolve) => {
          answer = () => resolve({ body: { state: wireOf(state([profile({ name: '写作教练' })])), meta: meta() } })
        }),
    )
    const Page = host.slots.entries('settings.section')[0]!.component as ComponentType<{ close: () => void }>
    const { container } = await render(<Page close={() => {}} />)
    expect(text(container)).toBe('智能体配置 正在加载智能体配置…')
    answer()
    await settle()
    expect(text(container)).toContain('写作教练')
    host.dispose()
  })

  it('installs one stylesheet of ap- classes coloured only by host tokens, and removes it on unload', () => {
    const host = hostContext()
    apply(host.ctx as unknown as Parameters<typeof apply>[0])
    const tags = document.head.querySelectorAll('style[data-plugin="dsh-agent-profiles"]')
    expect(tags).toHaveLength(1)
    const css = tags[0]!.textContent!
    const classes = [...css.matchAll(/\.(-?[_a-zA-Z][\w-]*)/g)].map((m) => m[1]!)
    expect(classes.length).toBeGreaterThan(20)
    expect(classes.filter((c) => !c.startsWith('ap-'))).toEqual([])
    expect(css).not.toMatch(/#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(/)
    const colours = [
      ...css.matchAll(/(?:^|[;{\s])(color|background|border(?:-[a-z]+)?|outline|accent-color)\s*:\s*([^;}]+)/g),
    ]
      .map((m) => m[2]!)
      .filter((v) => /var\(/.test(v))
    expect(colours.length).toBeGreaterThan(10)
    for (const v of colours) expect(v).not.toMatch(/var\(--(?!dsw-alias-)/)
    host.dispose()
    expect(document.head.querySelectorAll('style[data-plugin="dsh-agent-profiles"]')).toHaveLength(0)
  })
})
