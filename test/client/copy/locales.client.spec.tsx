import { act } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { bindLocale, translate, useT, zh } from '../../../lib/client/copy/locales.ts'
import { cleanup, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

describe('translate', () => {
  it('gives the Chinese and the English text of a key', () => {
    expect(translate('zh', 'nav')).toBe('智能体配置')
    expect(translate('en', 'nav')).toBe('Agent profiles')
  })

  it('fills {name} placeholders and leaves unknown ones visible', () => {
    expect(translate('en', 'list.pinned', { count: 3 })).toBe('Pinned in 3 conversations')
    expect(translate('zh', 'confirm.deleteUnbind', { name: '写手', count: 2 })).toContain('「写手」？有 2 个对话')
    expect(translate('en', 'editor.title')).toBe('Edit "{name}"')
  })

  it('picks the plural form Intl.PluralRules names for the count, in English only', () => {
    expect(translate('en', 'list.pinned', { count: 1 })).toBe('Pinned in 1 conversation')
    expect(translate('en', 'list.pinned', { count: 0 })).toBe('Pinned in 0 conversations')
    expect(translate('en', 'turn.memoriesUsed', { count: 1 })).toBe('1 memory used')
    expect(translate('en', 'io.exportUser', { count: 1 })).toBe('Include "About you" in the export (1 item)')
    expect(translate('zh', 'turn.memoriesUsed', { count: 1 })).toBe('用了 1 条记忆')
    // Without a count the `other` form stands.
    expect(translate('en', 'list.pinned')).toBe('Pinned in {count} conversations')
  })

  it('falls back to the built-in Chinese when a translation is missing or empty, never to an empty string', () => {
    const partial = { zh, en: { nav: '', 'list.pinned.one': '' } }
    expect(translate('en', 'nav', undefined, partial)).toBe('智能体配置')
    expect(translate('en', 'field.rules', undefined, partial)).toBe('行为准则')
    expect(translate('en', 'list.pinned', { count: 1 }, partial)).toBe('1 个对话固定')
    expect(translate('fr', 'field.rules')).toBe('行为准则')
  })
})

describe('useT', () => {
  it('follows the host language and re-renders when the user switches it', async () => {
    let active = 'zh'
    const listeners = new Set<() => void>()
    const unbind = bindLocale({
      getLocale: () => ({ active }),
      subscribe: (fn) => {
        listeners.add(fn)
        return () => listeners.delete(fn)
      },
    })
    function Label() {
      const t = useT()
      return <span>{t('field.speakingStyle')}</span>
    }
    try {
      const { container } = await render(<Label />)
      expect(text(container)).toBe('说话习惯')
      await act(async () => {
        active = 'en'
        for (const fn of listeners) fn()
      })
      expect(text(container)).toBe('Speaking style')
    } finally {
      unbind()
    }
  })

  it('speaks Chinese when no host language service is bound', async () => {
    function Label() {
      return <span>{useT()('field.role')}</span>
    }
    const { container } = await render(<Label />)
    expect(text(container)).toBe('角色设定')
  })
})
