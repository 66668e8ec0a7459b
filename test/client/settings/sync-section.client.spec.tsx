/**
 * Import, export & maintenance → "Sync" on the real routes and the real sync part (a real store, the system git, a
 * bare repository on disk): a remote that is not one is refused naming the field in the page's language and nothing
 * is set; a repository set and "Sync now" say when it synced; a remote that cannot be reached is said in the page's
 * language with git's words quoted; both languages.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { SyncSection } from '../../../lib/client/settings/SyncSection.tsx'
import { button, click, field, render, settle, text, type } from '../../support/dom.tsx'
import { syncHost, type SyncHost } from '../../support/sync-host.ts'

let host: SyncHost | undefined
let unbind: (() => void) | undefined

afterEach(async () => {
  unbind?.()
  unbind = undefined
  await host?.close()
  host = undefined
})

/** The section on a real host, in `lang`. */
async function open(lang: 'en' | 'zh') {
  host = await syncHost('ap-sync-section-')
  if (lang === 'en') unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
  const base = `http://127.0.0.1:${host.port}/__ap`
  const { container } = await render(
    <ApiContext.Provider value={createApiClient(base, globalThis.fetch)}>
      <SyncSection />
    </ApiContext.Provider>,
  )
  await until(() => !text(container).includes(lang === 'en' ? 'Loading' : '加载'))
  return container
}

/** Wait (real time: git runs in child processes) until `ok`. */
async function until(ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out')
    await settle(20)
  }
}

const CJK = /[\u3400-\u9fff]/

describe('the Sync section', () => {
  it('refuses a remote that is not one, naming the field in Chinese, and sets nothing', async () => {
    const page = await open('zh')
    expect(text(page)).toContain('同步未开启：尚未设置仓库。')
    await type(field('Git 仓库', page), '-oProxyCommand=touch /tmp/x')
    await click(button('保存', page))
    await until(() => text(page).includes('「Git 仓库」'))
    expect(text(page)).toContain('「Git 仓库」：不是 git 远程地址')
    expect(host!.part.reply().settings).toBeNull()
    expect(text(page)).toContain('同步未开启')
  })

  it('sets a repository, syncs now and says when; an unreachable one is said in Chinese with git quoted', async () => {
    const page = await open('zh')
    const remote = join(host!.dir, 'remote.git')
    execFileSync('git', ['init', '--bare', '--quiet', remote])
    await type(field('Git 仓库', page), remote)
    await click(button('保存', page))
    await until(() => text(page).includes('同步设置已保存'))
    await click(button('立即同步', page))
    await until(() => text(page).includes('上次同步：'))
    expect(page.querySelector('[data-ap-sync-error]')).toBeNull()
    expect(execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', 'main'], { encoding: 'utf8' })).toMatch(
      /^profile: \+1/m,
    )
    // The repository goes away: the next sync says so and keeps the work.
    rmSync(remote, { recursive: true, force: true })
    await click(button('立即同步', page))
    await until(() => page.querySelector('[data-ap-sync-error]') !== null)
    const error = page.querySelector('[data-ap-sync-error]')!
    expect(error.getAttribute('data-ap-sync-error')).toBe('unreachable')
    expect(text(error)).toContain('无法连接仓库（离线或地址有误）。你的改动已保留，能连接时会发送。')
    expect(error.querySelector('code')?.textContent).not.toBe('')
  })

  it('speaks English: the refusal names the field, an unreachable remote is said in English', async () => {
    const page = await open('en')
    expect(text(page)).toContain('Sync is off: no repository is set.')
    await type(field('Branch', page), '../x')
    await type(field('Git repository', page), join(host!.dir, 'nowhere.git'))
    await click(button('Save', page))
    await until(() => text(page).includes('Field "Branch": is not a branch name'))
    expect(host!.part.reply().settings).toBeNull()
    await type(field('Branch', page), 'main')
    await click(button('Save', page))
    await until(() => text(page).includes('Sync settings saved'))
    await click(button('Sync now', page))
    await until(() => page.querySelector('[data-ap-sync-error]') !== null)
    const shown = text(page.querySelector('[data-ap-sync-error]')!)
    expect(shown).toContain('The repository cannot be reached (offline, or the address is wrong).')
    expect(text(page).replace(shown, '')).not.toMatch(CJK)
  })
})
