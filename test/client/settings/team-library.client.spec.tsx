/**
 * Team profiles in the settings page (jsdom, real React, the real commands behind a stubbed fetch): the list marks a
 * team profile with its library; its editor shows it read-only — fields disabled, no Delete, a line naming the
 * library, what its tools asked for — with "Duplicate to edit", which opens an editable copy of one's own. The Sync
 * section lists the team libraries, adds one (the name defaulting from the remote) and removes one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { keepDraft } from '../../../lib/client/common/editing.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import { TeamLibraries } from '../../../lib/client/settings/TeamLibraries.tsx'
import { applyCommand } from '../../../lib/commands/dispatch.ts'
import { factoryState } from '../../../lib/state/defaults.ts'
import type { State } from '../../../lib/state/model.ts'
import type { LibrariesReply } from '../../../lib/shared/library.ts'
import {
  button,
  cleanup,
  click,
  field,
  meta,
  profileAnswer,
  render,
  settle,
  stubFetch,
  tab,
  text,
  type,
  wireOf,
} from '../../support/dom.tsx'

const unbinds: Array<() => void> = []
afterEach(async () => {
  await cleanup()
  keepDraft(null)
  for (const unbind of unbinds.splice(0)) unbind()
  vi.unstubAllGlobals()
})

let seq = 0
const ctx = () => ({ now: 1_800_000_000_000 + ++seq, newId: (p: string) => `${p}${++seq}` })

/** The factory profiles and one team profile of the library "平台组" that asked for every tool. */
function teamState(): State {
  const s = factoryState(1)
  const coder = s.profiles.find((p) => p.id === 'coder')!
  return applyCommand(
    s,
    {
      op: 'library.apply',
      library: { id: 'lib0000001', name: '平台组' },
      profiles: [
        { ...coder, id: 't-lib0000001-abcdef012345', name: '代码审查员', rules: '先看测试', tools: undefined },
      ],
    },
    ctx(),
  ).state
}

/** The settings page over `state`, its commands run by the real command functions. */
async function open(locale: string) {
  let state = teamState()
  const answer = () => ({ body: { state: wireOf({ ...state, sessions: {} }), meta: meta() } })
  stubFetch((call) => {
    const whole = profileAnswer(state.profiles, call)
    if (whole !== undefined) return whole
    if (call.path === '/__ap/command') {
      try {
        const r = applyCommand(state, call.body, ctx())
        state = r.state
        return { body: { ...answer().body, notice: r.notice, ...r.extra } }
      } catch (e) {
        const err = e as { code: string; message: string; field?: string; rule?: string; values?: string[] }
        return {
          status: 409,
          body: {
            error: { code: err.code, message: err.message, field: err.field, rule: err.rule, values: err.values },
          },
        }
      }
    }
    if (call.path.startsWith('/__ap/state')) return answer()
    return { status: 404, body: { error: { code: 'not-found', message: call.path } } }
  })
  unbinds.push(bindLocale({ getLocale: () => ({ active: locale }), subscribe: () => () => {} }))
  const { container } = await render(
    <ApiContext.Provider value={createApiClient()}>
      <SettingsPage />
    </ApiContext.Provider>,
  )
  await settle(5)
  return { container, host: () => state }
}

const row = (c: HTMLElement, id: string) => c.querySelector<HTMLElement>(`[data-profile-id="${id}"]`)!

describe('a team profile in the settings page', () => {
  it('is marked with its library in the list, shown read-only, and "Duplicate to edit" opens an editable copy', async () => {
    const { container, host } = await open('en')
    const team = row(container, 't-lib0000001-abcdef012345')
    expect(text(team)).toContain('Team: 平台组')
    expect(row(container, 'coder').querySelector('[data-ap-library]')).toBeNull()
    await click(team)
    await settle(5)
    expect(text(container.querySelector('[data-ap-team-profile]')!)).toContain(
      'This profile comes from the team library "平台组"',
    )
    expect(field('Ground rules').matches(':disabled')).toBe(true)
    expect(field('Name').matches(':disabled')).toBe(true)
    expect(() => button('Delete')).toThrow()
    await click(tab('Tools'))
    expect(text(container.querySelector('[data-ap-library-asks]')!)).toContain('"Full (unchanged)"')
    await click(button('Duplicate to edit'))
    await settle(5)
    const copy = host().profiles.find((p) => p.name === '代码审查员 副本')!
    expect(copy.library).toBeUndefined()
    expect(container.querySelector('[data-ap-team-profile]')).toBeNull()
    await click(tab('Profile'))
    expect(field('Ground rules').matches(':disabled')).toBe(false)
    await type(field('Ground rules'), '先看测试，再看命名')
    await click(button('Save'))
    await settle(5)
    expect(host().profiles.find((p) => p.id === copy.id)!.rules).toBe('先看测试，再看命名')
    expect(host().profiles.find((p) => p.id === 't-lib0000001-abcdef012345')!.rules).toBe('先看测试')
  })

  it('in Chinese, says where the profile is changed', async () => {
    const { container } = await open('zh-CN')
    await click(row(container, 't-lib0000001-abcdef012345'))
    await settle(5)
    expect(text(container.querySelector('[data-ap-team-profile]')!)).toContain('这个配置来自团队库“平台组”')
    expect(button('复制后编辑')).toBeDefined()
  })
})

describe('the team libraries of the Sync section', () => {
  it('lists each library, adds one with the name from its remote, and removes one', async () => {
    let libraries: LibrariesReply['libraries'] = [
      {
        id: 'lib0000001',
        name: '平台组',
        remote: 'git@example.com:platform/profiles.git',
        branch: 'main',
        status: {
          running: false,
          failures: 1,
          profiles: 3,
          lastSync: 1_800_000_000_000,
          error: { key: 'unreachable', detail: 'ssh: connect refused' },
        },
      },
    ]
    const calls = stubFetch((call) => {
      if (call.path === '/__ap/sync/libraries/add') {
        const b = call.body as { remote: string; branch: string; name: string }
        libraries = [
          ...libraries,
          {
            id: 'lib0000002',
            remote: b.remote,
            branch: b.branch,
            name: b.name || 'review',
            status: { running: false, failures: 0, profiles: 2, lastSync: 1_800_000_000_000 },
          },
        ]
      }
      if (call.path === '/__ap/sync/libraries/remove') libraries = libraries.filter((l) => l.id !== call.body?.id)
      return { body: { libraries } }
    })
    unbinds.push(bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} }))
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <TeamLibraries />
      </ApiContext.Provider>,
    )
    await settle(5)
    const first = container.querySelector<HTMLElement>('[data-ap-library-row="lib0000001"]')!
    expect(text(first)).toContain('平台组')
    expect(text(first)).toContain('3 profiles')
    expect(first.querySelector('[data-ap-library-error="unreachable"]')).not.toBeNull()
    await type(field('Team repository'), '/srv/git/review.git')
    expect(field('Shown as').placeholder).toBe('review')
    await click(button('Add library'))
    await settle(5)
    expect(calls.find((c) => c.path === '/__ap/sync/libraries/add')!.body).toEqual({
      remote: '/srv/git/review.git',
      branch: 'main',
      name: '',
    })
    expect(text(container)).toContain('Added "review"')
    expect(container.querySelector('[data-ap-library-row="lib0000002"]')).not.toBeNull()
    await click(button('Remove', first))
    await settle(5)
    expect(container.querySelector('[data-ap-library-row="lib0000001"]')).toBeNull()
    expect(text(container)).toContain('Removed "平台组"')
  })
})
