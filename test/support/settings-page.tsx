/**
 * What the settings page specs (test/client/settings/settings-*.client.spec.tsx) share: a sample state of two
 * profiles and two conversations, the page opened in jsdom on the fake host, the commands the host received, and the
 * page's confirmation dialog and profile rows. {@link cleanPageEachTest} unmounts and forgets drafts after each test.
 */
import { afterEach, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../lib/client/data/api.ts'
import { keepDraft } from '../../lib/client/common/editing.ts'
import { SettingsPage, type SettingsPageProps } from '../../lib/client/settings/SettingsPage.tsx'
import { cleanup, profile, render, settle, type TestState } from './dom.tsx'
import { opsHost, type OpsHost } from './ops-host.ts'

/** Unmount the page, drop any kept draft and restore `fetch` after each test of the calling spec file. */
export function cleanPageEachTest(): void {
  afterEach(async () => {
    await cleanup()
    keepDraft(null)
    vi.unstubAllGlobals()
  })
}

/** Two profiles (the second with an avatar and a rule) and two conversations bound to the second. */
export const sample = (): TestState => ({
  version: 1,
  activeId: 'a',
  profiles: [
    profile({ id: 'a', name: '通用助手', emoji: '🤖' }),
    profile({ id: 'b', name: '写作教练', emoji: '✍️', avatar: '/__ap/avatar/b?v=1', rules: '不编造引用' }),
  ],
  sessions: {
    'session-1': { profileId: 'b', note: '', memories: [] },
    'session-2': { profileId: 'b', note: '', memories: [] },
  },
})

/** The settings page over a fake host holding `s`, once its first load has settled. */
export async function open(
  s: TestState = sample(),
  props: SettingsPageProps = {},
): Promise<{ host: OpsHost; container: HTMLElement }> {
  const host = opsHost(s)
  const { container } = await render(
    <ApiContext.Provider value={createApiClient()}>
      <SettingsPage {...props} />
    </ApiContext.Provider>,
  )
  await settle(5)
  return { host, container }
}

/** The bodies of the commands `host` received, in order. */
export const commands = (host: OpsHost) => host.calls.filter((c) => c.path === '/__ap/command').map((c) => c.body)
/** The open confirmation dialog, if any. */
export const dialog = () => document.querySelector<HTMLElement>('[role="alertdialog"]')
/** Profile `id`'s row in the list. */
export const row = (c: HTMLElement, id: string) => c.querySelector<HTMLElement>(`[data-profile-id="${id}"]`)!
