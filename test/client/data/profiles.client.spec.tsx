/**
 * Whole profiles in the page (lib/client/profiles.ts): the state carries heads, and a component that shows a
 * profile's texts or memory gets it whole through useProfile — fetched once for every component asking, fetched again
 * when the head's `updatedAt` moves or the push channel says the profile changed after the copy was read, never
 * otherwise, and the copy read before stays on screen while a newer one is on its way.
 */
import { act, type ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient, type ApiClient } from '../../../lib/client/data/api.ts'
import { profilesOf, useProfile } from '../../../lib/client/data/profiles.ts'
import type { Profile } from '../../../lib/state/model.ts'
import {
  meta,
  profile,
  profileAnswer,
  render,
  settle,
  state,
  stubFetch,
  text,
  wireOf,
  type Answer,
  type Call,
} from '../../support/dom.tsx'

/** Shows the role and memory of profile `id` as useProfile gives it. */
function Shows({ id }: { id: string }): ReactNode {
  const p = useProfile(id)
  return (
    <div data-shows={id}>
      {p === undefined ? 'loading' : `${p.role} | ${p.memory.items.map((it) => it.text).join(',')}`}
    </div>
  )
}

/** A fake host over `saved`, whose whole-profile answers can be held back. */
function host(saved: { profiles: Profile[] }, hold?: { until: Promise<void> }): Call[] {
  return stubFetch(async (call): Promise<Answer> => {
    if (call.path === '/__ap/state')
      return { body: { state: wireOf(state(saved.profiles)), meta: meta({ revision: 1 }) } }
    if (hold !== undefined && call.path.startsWith('/__ap/profile/')) await hold.until
    return (
      profileAnswer(saved.profiles, call, 5) ?? {
        status: 404,
        body: { error: { code: 'not-found', message: call.path } },
      }
    )
  })
}

async function page(client: ApiClient, ui: ReactNode): Promise<HTMLElement> {
  await client.refresh()
  const { container } = await render(<ApiContext.Provider value={client}>{ui}</ApiContext.Provider>)
  await settle()
  return container
}

const wholeFetches = (calls: Call[], id: string) => calls.filter((c) => c.path === `/__ap/profile/${id}`).length

describe('useProfile', () => {
  it('fetches a profile whole once for every component showing it, and keeps it while nothing changed', async () => {
    const saved = {
      profiles: [
        profile({
          id: 'a',
          role: '角色甲',
          memory: { summary: '', items: [{ id: 'm1', text: '喜欢茶', source: 'user', at: 1 }] },
        }),
      ],
    }
    const calls = host(saved)
    const client = createApiClient()
    const container = await page(
      client,
      <>
        <Shows id="a" />
        <Shows id="a" />
      </>,
    )
    expect([...container.querySelectorAll('[data-shows]')].map((el) => text(el))).toEqual([
      '角色甲 | 喜欢茶',
      '角色甲 | 喜欢茶',
    ])
    expect(client.getSnapshot().state!.profiles[0]).not.toHaveProperty('role')
    await act(async () => {
      await client.refresh()
    })
    await settle()
    expect(wholeFetches(calls, 'a')).toBe(1)
  })

  it('fetches it again when its head says it was saved since, showing the older copy meanwhile', async () => {
    const saved = { profiles: [profile({ id: 'a', role: '旧角色' })] }
    let release = (): void => {}
    const hold = { until: Promise.resolve() }
    const calls = host(saved, hold)
    const client = createApiClient()
    const container = await page(client, <Shows id="a" />)
    expect(text(container)).toBe('旧角色 |')
    saved.profiles = [{ ...saved.profiles[0]!, role: '新角色', updatedAt: saved.profiles[0]!.updatedAt + 1 }]
    hold.until = new Promise((resolve) => {
      release = resolve
    })
    await act(async () => {
      client.patch({ profiles: wireOf(state(saved.profiles)).profiles })
    })
    await settle()
    expect(text(container)).toBe('旧角色 |')
    await act(async () => {
      release()
    })
    await settle()
    expect(text(container)).toBe('新角色 |')
    expect(wholeFetches(calls, 'a')).toBe(2)
  })

  it('fetches it again when the push channel names it after the copy was read, even with the same updatedAt', async () => {
    const saved = { profiles: [profile({ id: 'a', role: '旧角色' })] }
    const calls = host(saved)
    const client = createApiClient()
    const container = await page(client, <Shows id="a" />)
    const cache = profilesOf(client)
    // A change the copy already holds (read at revision 5) asks nothing.
    await act(async () => {
      cache.heard(['a'], 4)
    })
    await settle()
    expect(wholeFetches(calls, 'a')).toBe(1)
    saved.profiles = [{ ...saved.profiles[0]!, role: '同一毫秒里又存了一次' }]
    await act(async () => {
      cache.heard(['a'], 6)
    })
    await settle()
    expect(text(container)).toBe('同一毫秒里又存了一次 |')
    expect(wholeFetches(calls, 'a')).toBe(2)
  })

  it('gives nothing for a profile the state does not hold, and current() waits for the saved version', async () => {
    const saved = { profiles: [profile({ id: 'a', role: '角色' })] }
    const calls = host(saved)
    const client = createApiClient()
    const container = await page(client, <Shows id="zz" />)
    expect(text(container)).toBe('loading')
    expect(calls.some((c) => c.path.startsWith('/__ap/profile/zz'))).toBe(false)
    expect((await profilesOf(client).current('a'))?.role).toBe('角色')
    expect(await profilesOf(client).current('zz')).toBeUndefined()
  })
})
