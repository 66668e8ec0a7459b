/**
 * What the specs of the settings page (test/client/settings/) share: a sample state of two
 * profiles and two conversations, the page opened in jsdom on the fake host, the commands the host received, and the
 * page's confirmation dialog and profile rows. {@link cleanPageEachTest} unmounts and forgets drafts after each test.
 */
import { afterEach, vi } from 'vitest'
import { ApiContext, createApiClient, type ApiClient } from '../../lib/client/data/api.ts'
import { keepDraft, keepTyped, profileSurface } from '../../lib/client/common/editing.ts'
import { SettingsPage, type SettingsPageProps } from '../../lib/client/settings/SettingsPage.tsx'
import { cleanup, click, profile, render, settle, tab, type TestState } from './dom.tsx'
import { opsHost, type OpsHost } from './ops-host.ts'

/**
 * Unmount the page, drop any kept draft (and what was typed for profile `a`) and restore `fetch` after each test of
 * the calling spec file; `also` forgets what else a spec's page keeps between mounts.
 */
export function cleanPageEachTest(also?: () => void): void {
  afterEach(async () => {
    await cleanup()
    keepDraft(null)
    keepTyped(profileSurface('a'), undefined)
    also?.()
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

/** The settings page (over the fake host a spec made), once its first load has settled. */
export async function mountPage(props: SettingsPageProps = {}): Promise<{ container: HTMLElement; client: ApiClient }> {
  const client = createApiClient()
  const { container } = await render(
    <ApiContext.Provider value={client}>
      <SettingsPage {...props} />
    </ApiContext.Provider>,
  )
  await settle(5)
  return { container, client }
}

/** The settings page over a fake host holding `s`, once its first load has settled. */
export async function open(
  s: TestState = sample(),
  props: SettingsPageProps = {},
): Promise<{ host: OpsHost; container: HTMLElement; client: ApiClient }> {
  const host = opsHost(s)
  return { host, ...(await mountPage(props)) }
}

/** The settings page over a fake host holding `s`, on its tab `label` once that tab's reads have settled. */
export async function openAt(
  label: string,
  s: TestState,
  props: SettingsPageProps = {},
): Promise<{ host: OpsHost; container: HTMLElement; client: ApiClient }> {
  const opened = await open(s, props)
  await click(tab(label, opened.container))
  await settle(5)
  return opened
}

/** The bodies of the commands `host` received, in order. */
export const commands = (host: OpsHost) => host.calls.filter((c) => c.path === '/__ap/command').map((c) => c.body)
/** The open confirmation dialog, if any. */
export const dialog = () => document.querySelector<HTMLElement>('[role="alertdialog"]')
/** Profile `id`'s row in the list. */
export const row = (c: HTMLElement, id: string) => c.querySelector<HTMLElement>(`[data-profile-id="${id}"]`)!
