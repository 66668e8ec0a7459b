import { afterEach, describe, expect, it } from 'vitest'
import { DataBanner } from '../../../lib/client/settings/DataHealth.tsx'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { ApiError } from '../../../lib/client/data/call.ts'
import { describeError, formatTime } from '../../../lib/client/common/feedback.ts'
import { bindLocale, translate, type ApKey, type Params } from '../../../lib/client/copy/locales.ts'
import type { DataHealth } from '../../../lib/shared/meta.ts'
import type { UnwritableCause } from '../../../lib/shared/reasons.ts'
import { cleanup, meta, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const newer: DataHealth & { readOnly: { kind: 'newer' } } = {
  readOnly: {
    kind: 'newer',
    message: 'the data was made by a newer version of this plugin (schema 3; this version writes 2); update to edit',
  },
  setAside: [],
}

async function inEnglish<T>(body: () => Promise<T>): Promise<T> {
  const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
  try {
    return await body()
  } finally {
    unbind()
  }
}

/** What Diagnostics says with `data` as the host's `meta.data`, in English or Chinese. */
async function diagnosticsText(data: DataHealth, english: boolean): Promise<string> {
  const page = () => render(<Diagnostics meta={meta({ data })} onRefresh={() => {}} />)
  const { container } = english ? await inEnglish(page) : await page()
  const said = text(container)
  await cleanup()
  return said
}

describe('the data health', () => {
  it('a banner says the data was made by a newer version and to update to edit, in zh and en', async () => {
    const zh = await render(<DataBanner data={newer} />)
    expect(text(zh.container)).toBe(
      '这些数据由本插件的更新版本写成；请更新插件后再编辑。现在只能查看，什么都不会保存。',
    )
    await cleanup()
    const en = await inEnglish(() => render(<DataBanner data={newer} />))
    expect(text(en.container)).toBe(
      'This data was made by a newer version of this plugin; update to edit. It can be viewed here, but nothing is saved.',
    )
    await cleanup()
    const unreadable = await render(
      <DataBanner data={{ readOnly: { ...newer.readOnly!, unreadable: true }, setAside: [] }} />,
    )
    expect(text(unreadable.container)).toContain('这个版本读不了')
    await cleanup()
    const fine = await render(<DataBanner data={{ setAside: [] }} />)
    expect(fine.container.textContent).toBe('')
  })

  it("a banner says why the data directory cannot be written in the page's language, the system's words quoted", async () => {
    const unwritable = (cause: UnwritableCause): DataHealth => ({
      readOnly: { kind: 'unwritable', cause, message: "EACCES: permission denied, access '/data'" },
      setAside: [],
    })
    const zh = await render(<DataBanner data={unwritable('permission')} />)
    expect(text(zh.container)).toBe(
      "数据目录不能写入：当前用户没有写入权限。什么都不会保存。（原文：“EACCES: permission denied, access '/data'”）",
    )
    await cleanup()
    const en = await inEnglish(() => render(<DataBanner data={unwritable('read-only')} />))
    expect(text(en.container)).toBe(
      'The data directory cannot be written: its disk is mounted read-only. Nothing is saved. (in its own words: "EACCES: permission denied, access \'/data\'")',
    )
    await cleanup()
    const other = await inEnglish(() => render(<DataBanner data={unwritable('error')} />))
    expect(text(other.container)).toMatch(/^The data directory cannot be written, so nothing is saved\. \(in its own/)
  })

  it('a command refused because a newer version made the data reads so in the page language', () => {
    const refused = new ApiError(
      'not saved: the data was made by a newer version of this plugin (schema 3; this version writes 2); update to edit',
      'read-only',
      409,
    )
    const t = (locale: string) => (key: ApKey, params?: Params) => translate(locale, key, params)
    expect(describeError(t('zh'), refused)).toBe('没有保存：这些数据由本插件的更新版本写成；请更新插件后再编辑。')
    expect(describeError(t('en'), refused)).toBe(
      'Not saved: this data was made by a newer version of this plugin; update to edit.',
    )
  })

  it('Diagnostics lists the read-only reason, each row set aside with table, key and why in words, and a salvage', async () => {
    const data: DataHealth = {
      ...newer,
      setAside: [
        {
          table: 'profiles',
          key: 'general',
          why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.general.name', limit: 40 } },
          reason: 'profiles.general.name: has 99 characters, over the limit of 40',
        },
        {
          table: 'meta',
          key: 'activeId',
          why: { key: 'active-missing', params: { id: 'ghost' } },
          reason: 'names no profile ("ghost"); the first profile is active until another is chosen',
          mended: true,
        },
      ],
      salvage: { saved: 120, lost: 3, keptAs: 'profiles.sqlite.bad-1' },
    }
    const { container } = await inEnglish(() => render(<Diagnostics meta={meta({ data })} onRefresh={() => {}} />))
    const shown = text(container)
    expect(shown).toContain('Read-only This data was made by a newer version of this plugin; update to edit.')
    expect(shown).toContain('profiles · general · Field "Name": at most 40 characters')
    expect(shown).toContain(
      'meta · activeId · names a default profile that is not there ("ghost"); the first profile stands in until another is chosen (mended in memory)',
    )
    expect(shown).not.toContain('has 99 characters')
    expect(shown).toContain(
      'From the damaged database, rows saved: 120, rows lost: 3; the damaged file was kept in the data directory as profiles.sqlite.bad-1',
    )
    await cleanup()
    const zh = await render(<Diagnostics meta={meta({ data: { setAside: [] } })} onRefresh={() => {}} />)
    expect(text(zh.container)).toContain('搁置的行 没有')
  })

  it('Diagnostics says what the integrity check found, sound or damaged with its time, and when it has not run yet', async () => {
    const at = Date.UTC(2026, 11, 4, 2, 30)
    const shown = (check: DataHealth['check'], english: boolean) => diagnosticsText({ setAside: [], check }, english)
    expect(await shown({ state: 'sound', at }, true)).toContain(
      `Integrity check Checked ${formatTime('en', at)}: the data file is sound.`,
    )
    expect(await shown({ state: 'sound', at }, false)).toContain(
      `完整性检查 ${formatTime('zh', at)} 已检查：数据文件完好。`,
    )
    expect(await shown({ state: 'pending' }, true)).toContain(
      'Integrity check Not run yet: soon after dsh starts, the whole data file is read in the background',
    )
    expect(await shown({ state: 'pending' }, false)).toContain('完整性检查 尚未运行')
    const damaged = await shown({ state: 'damaged', at }, true)
    expect(damaged).toContain(`Checked ${formatTime('en', at)}: the data file is damaged. Nothing you saved is lost`)
    expect(await shown({ state: 'damaged', at }, false)).toContain('数据文件有损坏。你保存的内容都没有丢')
    expect(await shown({ state: 'not-run', at }, true)).toContain('it is tried again at the next start of dsh')
    // A host with nothing to check (no data file yet) says nothing of a check.
    expect(await shown(undefined, true)).not.toContain('Integrity check')
  })

  it('Diagnostics says the data file is being upgraded in the background, or that the upgrade stopped, in zh and en', async () => {
    const shown = (upgrade: DataHealth['upgrade'], english: boolean) =>
      diagnosticsText({ setAside: [], upgrade }, english)
    expect(await shown('running', true)).toContain(
      'Data file upgrade Under way in the background: this version marks each saved memory',
    )
    expect(await shown('running', false)).toContain('数据文件升级 正在后台进行')
    expect(await shown('stopped', true)).toContain('Data file upgrade Stopped by an error (see the log)')
    expect(await shown('stopped', false)).toContain('数据文件升级 因出错而停下')
    // Done, or none to run: nothing is said.
    expect(await shown(undefined, true)).not.toContain('Data file upgrade')
  })
})
