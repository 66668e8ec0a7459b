/**
 * Diagnostics → one row per sync repository, from the real sync part (a real store, the system git, bare
 * repositories on disk): the personal repository and each team library say where they are (a token in a remote's
 * URL never shown, nor in git's words), when they last pulled and pushed, and what failed, in the page's language;
 * a library says it is only pulled. Both languages.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { meta, render, text } from '../../support/dom.tsx'
import { syncHost, type SyncHost } from '../../support/sync-host.ts'
import { syncWorld } from '../../support/sync-machines.ts'
import { teamRepo } from '../../support/team-library.ts'

const world = syncWorld()
let host: SyncHost | undefined
let unbind: (() => void) | undefined
afterEach(async () => {
  unbind?.()
  unbind = undefined
  await host?.close()
  host = undefined
})

const CJK = /[\u3400-\u9fff]/
const SECRET = 'tok3n-SECRET'
/** A team library's remote that cannot be reached, with a token in its URL (port 9: nothing listens). */
const AWAY = `https://me:${SECRET}@127.0.0.1:9/team.git`

/** A host syncing with a bare repository, following a team library that works and one that cannot be reached. */
async function hostWithRepositories(): Promise<{ team: string }> {
  const { remote: team } = await teamRepo(world)
  host = await syncHost('ap-diag-repos-')
  const personal = join(host.dir, 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', personal])
  await host.part.configure({ remote: personal, branch: 'main' })
  await host.part.libraries.add({ remote: team, branch: 'main', name: '平台组' })
  await host.part.libraries.add({ remote: AWAY, branch: 'main', name: '远端组' })
  // The unreachable library has failed twice now: when it was added, and on this "Sync now".
  await host.part.now()
  return { team }
}

/** The rows Diagnostics shows for the host's sync part, by repository. */
async function rows(): Promise<Map<string, Element>> {
  const m = meta({ sync: host!.part.diagnostics() })
  const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
  expect(text(container)).not.toContain(SECRET)
  return new Map([...container.querySelectorAll('[data-ap-repo]')].map((e) => [e.getAttribute('data-ap-repo')!, e]))
}

describe('Diagnostics: every sync repository', () => {
  it('shows the personal repository and each team library: where, last pull and push, what failed (Chinese)', async () => {
    const { team } = await hostWithRepositories()
    const shown = await rows()
    expect(shown.size).toBe(3)
    const personal = text(shown.get('personal')!)
    expect(personal).toContain('上次同步：')
    expect(personal).toContain('上次推送：')
    expect(personal).toMatch(/上次尝试：.+，成功。/)

    const [ok, away] = host!.part.libraries.reply().libraries
    const okRow = shown.get(ok!.id)!
    expect(okRow.previousElementSibling?.textContent).toBe('团队库「平台组」')
    expect(text(okRow)).toContain(`${team}，分支 main`)
    expect(text(okRow)).toMatch(/上次拉取：.+，\d+ 套配置。/)
    expect(text(okRow)).toContain('只读：只拉取，从不推送。')
    expect(okRow.querySelector('[data-ap-sync-error]')).toBeNull()

    const awayRow = shown.get(away!.id)!
    expect(awayRow.previousElementSibling?.textContent).toBe('团队库「远端组」')
    expect(text(awayRow)).toContain('https://•••@127.0.0.1:9/team.git，分支 main')
    expect(text(awayRow)).toContain('还没有拉取过。')
    const failed = awayRow.querySelector('[data-ap-sync-error]')!
    expect(failed.getAttribute('data-ap-sync-error')).toBe('unreachable')
    expect(text(failed)).toMatch(/^上次尝试：.+，失败（连续失败 2 次）： 无法连接仓库/)
  }, 120_000)

  it('speaks English, with no Chinese outside the names and git’s quoted words', async () => {
    await hostWithRepositories()
    unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    const shown = await rows()
    const personal = text(shown.get('personal')!)
    expect(personal).toContain('Last pushed ')
    expect(personal).toMatch(/Last try .+: it worked\./)
    const [ok, away] = host!.part.libraries.reply().libraries
    const okRow = text(shown.get(ok!.id)!)
    expect(okRow).toMatch(/Last pulled .+: \d+ profiles\./)
    expect(okRow).toContain('Read-only: pulled, never pushed.')
    const awayRow = shown.get(away!.id)!
    expect(awayRow.previousElementSibling?.textContent).toBe('Team library "远端组"')
    const failed = text(awayRow.querySelector('[data-ap-sync-error]')!)
    expect(failed).toMatch(/^Last try .+ failed \(failures in a row: 2\): The repository cannot be reached/)
    for (const row of shown.values()) expect(text(row).replace(/"[^"]*"/g, '')).not.toMatch(CJK)
  }, 120_000)
})
