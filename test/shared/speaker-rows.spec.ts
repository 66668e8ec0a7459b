// The rows several speakers add to a transcript, as both halves read them: what the host logs, and which row and
// whose name the page reads back — from the fields it logs now, or from the Chinese summary of a row logged before.
import { describe, expect, it } from 'vitest'
import { ROWS_PLUGIN, speakerRowOf, speakerRowSource } from '../../lib/shared/speaker-rows.ts'

describe('speaker rows', () => {
  it('logs a Chinese summary for any reader of the log, and the row and name the page words it from', () => {
    expect(speakerRowSource({ row: 'next', name: 'Writer' })).toEqual({
      kind: 'plugin',
      plugin: ROWS_PLUGIN,
      form: 'notice',
      summary: '接下来由「Writer」回答',
      row: 'next',
      name: 'Writer',
    })
    expect(speakerRowSource({ row: 'back', name: '测试老师' }).summary).toBe('回到「测试老师」')
  })

  it('reads back what it logged', () => {
    for (const row of [
      { row: 'next', name: 'Writer' },
      { row: 'back', name: '测试老师' },
      { row: 'back', name: '' },
    ] as const)
      expect(speakerRowOf(speakerRowSource(row))).toEqual(row)
  })

  it('reads a row logged before the fields existed from its summary', () => {
    const old = (summary: string) => ({ kind: 'plugin', plugin: ROWS_PLUGIN, form: 'notice', summary })
    expect(speakerRowOf(old('接下来由「写作顾问」回答'))).toEqual({ row: 'next', name: '写作顾问' })
    expect(speakerRowOf(old('回到「测试老师」'))).toEqual({ row: 'back', name: '测试老师' })
    expect(speakerRowOf(old('别的话'))).toBeUndefined()
  })

  it("is undefined for every other message source: another plugin's, the host's, malformed", () => {
    const summary = '回到「测试老师」'
    expect(speakerRowOf({ kind: 'plugin', plugin: 'time-context', form: 'notice', summary })).toBeUndefined()
    expect(speakerRowOf({ kind: 'user' })).toBeUndefined()
    expect(speakerRowOf(null)).toBeUndefined()
    expect(speakerRowOf('回到「测试老师」')).toBeUndefined()
    expect(speakerRowOf({ kind: 'plugin', plugin: ROWS_PLUGIN, row: 'sideways', name: 'X' })).toBeUndefined()
    expect(speakerRowOf({ kind: 'plugin', plugin: ROWS_PLUGIN, row: 'next', name: 'x'.repeat(10_000) })).toBeUndefined()
    expect(
      speakerRowOf({ kind: 'plugin', plugin: ROWS_PLUGIN, summary: `回到「${'x'.repeat(10_000)}」` }),
    ).toBeUndefined()
  })
})
