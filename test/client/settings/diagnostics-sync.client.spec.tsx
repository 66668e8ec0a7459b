/**
 * Diagnostics → "Sync": where this machine syncs, when it last synced, why the last try failed (in the page's
 * language, git's own words quoted) and how many profiles changed here wait to be sent; "off" when no repository is
 * set; nothing when the host sends no sync part (an older host). Both languages.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import type { SyncProblem, SyncStatus } from '../../../lib/shared/sync.ts'
import { meta, render, text } from '../../support/dom.tsx'

let unbind: (() => void) | undefined
afterEach(() => {
  unbind?.()
  unbind = undefined
})

const at = Date.UTC(2026, 11, 3, 8, 0)
const CJK = /[\u3400-\u9fff]/
const KEYS: SyncProblem['key'][] = [
  'git-missing',
  'unreachable',
  'auth',
  'rejected',
  'rewritten',
  'refused-content',
  'bad-file',
  'timeout',
  'busy',
  'store',
  'failed',
]

async function shown(sync: Partial<SyncStatus> | undefined): Promise<Element | null> {
  const m = meta(sync === undefined ? {} : { sync })
  const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
  return container.querySelector('.ap-diag-sync')
}

const offline: Partial<SyncStatus> = {
  running: false,
  remote: 'git@example.com:me/profiles.git',
  branch: 'main',
  lastSync: at,
  lastAttempt: at + 60_000,
  failures: 2,
  notes: [],
  pending: 2,
  error: { key: 'unreachable', detail: 'ssh: Could not resolve hostname example.com' },
}

describe('Diagnostics: sync', () => {
  it('says where, when, why the last try failed and what waits to be sent, in Chinese', async () => {
    const row = await shown(offline)
    const said = text(row!)
    expect(said).toContain('git@example.com:me/profiles.git，分支 main')
    expect(said).toContain('上次同步：')
    expect(said).toContain(
      '无法连接仓库（离线或地址有误）。你的改动已保留，能连接时会发送。（原文：“ssh: Could not resolve hostname example.com”）',
    )
    expect(said).toContain('这里有 2 套配置的改动还没进仓库。')
    const synced = text((await shown({ ...offline, error: undefined, pending: 0 }))!)
    expect(synced).toContain('这里的改动都已进仓库。')
    expect(synced).not.toContain('无法连接')
  })

  it('speaks English, with every failure worded and no Chinese outside the quoted detail', async () => {
    unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    const said = text((await shown(offline))!)
    expect(said).toContain('git@example.com:me/profiles.git, branch main')
    expect(said).toContain('Last synced ')
    expect(said).toContain('The repository cannot be reached (offline, or the address is wrong).')
    expect(said).toContain('2 profiles changed here are not in the repository yet.')
    expect(said).not.toMatch(CJK)
    expect(text((await shown({ ...offline, pending: 1 }))!)).toContain(
      '1 profile changed here is not in the repository yet.',
    )
    for (const key of KEYS) {
      const line = text(
        (await shown({ ...offline, error: { key, detail: 'x' } }))!.querySelector('[data-ap-sync-error]')!,
      )
      expect(line, key).not.toMatch(CJK)
      expect(line, key).not.toMatch(/sync\.error|\{\w+\}/)
    }
    expect(text((await shown({ running: false, notes: [], failures: 0 }))!)).toBe('Sync is off: no repository is set.')
  })

  it('says when this machine last pushed and what, or that it has not pushed, in both languages', async () => {
    const pushed = { ...offline, lastPush: at, lastPushSubject: 'memory: +1 (编程搭档)' }
    expect(text((await shown(pushed))!)).toMatch(/上次推送：.+（“memory: \+1 \(编程搭档\)”）。/)
    expect(text((await shown(offline))!)).toContain('这台机器还没有推送过。')
    unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    expect(text((await shown(pushed))!)).toMatch(/Last pushed .+: "memory: \+1 \(编程搭档\)"\./)
    expect(text((await shown(offline))!)).toContain('Nothing pushed from this machine yet.')
  })

  it('shows nothing of sync for a host that sends none', async () => {
    expect(await shown(undefined)).toBeNull()
  })
})
