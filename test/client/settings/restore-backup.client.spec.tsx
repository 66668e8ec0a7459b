// Maintenance → "Restore a backup" on the settings page: the backups' labels, and what a restore does to what the
// page said before it. The host is the fake one; the backup routes answer as the real host's do.
import { afterEach, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { keepDraft } from '../../../lib/client/common/editing.ts'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import type { BackupInfo } from '../../../lib/shared/wire-replies.ts'
import { button, chooseFile, cleanup, click, profile, render, settle, state, tab, text } from '../../support/dom.tsx'
import { opsHost } from '../../support/ops-host.ts'

afterEach(async () => {
  await cleanup()
  keepDraft(null)
  vi.unstubAllGlobals()
})

const minute = new Date(2026, 11, 3, 12, 30, 5).getTime()
const backup = (name: string, kind: BackupInfo['kind'], at: number): BackupInfo => ({
  name,
  kind,
  at,
  bytes: 2048,
  profiles: [{ id: 'a', name: '通用助手', items: 1 }],
  items: 1,
  sessions: 0,
})
const BACKUPS = [
  backup(`${minute + 40_000}-before-restore`, 'before-restore', minute + 40_000),
  backup(`${minute}-before-restore`, 'before-restore', minute),
  backup('2026-12-02', 'daily', minute - 86_400_000),
]

/** The page on the fake host, with the backup routes answered; `restored` lists the names restored. */
async function open() {
  opsHost(state([profile({ id: 'a', name: '通用助手' })]))
  const inner = globalThis.fetch
  const restored: string[] = []
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
    if (url === '/__ap/backups') return json({ backups: BACKUPS })
    if (url === '/__ap/backups/restore') {
      restored.push((JSON.parse(String(init?.body)) as { name: string }).name)
      return json({})
    }
    return inner(url, init)
  })
  const { container } = await render(
    <ApiContext.Provider value={createApiClient()}>
      <SettingsPage />
    </ApiContext.Provider>,
  )
  await settle(5)
  await click(tab('导入导出与维护', container))
  await settle(5)
  return { container, restored }
}

it('labels two backups taken in the same minute apart, by their seconds', async () => {
  const { container } = await open()
  const labels = [...container.querySelectorAll<HTMLOptionElement>('.ap-backups option')].map((o) => text(o))
  expect(labels).toHaveLength(3)
  expect(new Set(labels).size).toBe(3)
  expect(labels[0]).toContain(':45')
  expect(labels[1]).toContain(':05')
})

it('takes an import result off the screen once a backup is restored', async () => {
  const { container, restored } = await open()
  const input = container.querySelector<HTMLInputElement>('input[type="file"][aria-label="导入文件"]')!
  await chooseFile(input, new File([''], 'empty.md'))
  const io = () => container.querySelector<HTMLElement>('.ap-settings [role="alert"]')
  expect(text(io()!)).toContain('没有导入任何配置')
  await click(button('恢复这份备份', container))
  await click(button('确定', document.querySelector<HTMLElement>('[role="alertdialog"]')!))
  await settle(5)
  expect(restored).toEqual([BACKUPS[0]!.name])
  expect(text(container)).toContain('已恢复')
  expect(text(container)).not.toContain('没有导入任何配置')
})
