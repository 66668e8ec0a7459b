/**
 * The degradations a part keeps for its diagnostics (lib/log/warnings.ts): each distinct warning — its key, values
 * and caught error's text — kept once and logged once, in the one English line made from its key; the latest ones
 * kept when there are more than the part keeps.
 */
import { describe, expect, it } from 'vitest'
import { DistinctWarnings, warningLine } from '../../lib/log/warnings.ts'
import { WARNINGS, type Warning, type WarningKey } from '../../lib/shared/reasons.ts'

function recording(limit?: number) {
  const logged: string[] = []
  return { logged, warnings: new DistinctWarnings({ warn: (m) => logged.push(m) }, limit) }
}

describe('DistinctWarnings', () => {
  it('keeps a warning once and logs it once; another value or another error text is another warning', () => {
    const { logged, warnings } = recording()
    const first: Extract<Warning, { key: 'measure-failed' }> = {
      key: 'measure-failed',
      params: { preset: 'coder' },
      detail: 'roster gone',
    }
    warnings.warn(first)
    warnings.warn({ ...first })
    warnings.warn({ ...first, params: { preset: 'writer' } })
    warnings.warn({ ...first, detail: 'timed out' })
    expect(warnings.list()).toEqual([
      first,
      { ...first, params: { preset: 'writer' } },
      { ...first, detail: 'timed out' },
    ])
    expect(logged).toEqual([
      'agent-profiles: could not measure the tools of preset "coder": roster gone',
      'agent-profiles: could not measure the tools of preset "writer": roster gone',
      'agent-profiles: could not measure the tools of preset "coder": timed out',
    ])
  })

  it('turns a throw of a host listener into a keyed warning naming the event, and never lets it escape', () => {
    const { logged, warnings } = recording()
    expect(() =>
      warnings.guarded('agent/created', () => {
        throw new Error('boom')
      }),
    ).not.toThrow()
    expect(warnings.list()).toEqual([{ key: 'listener-failed', params: { event: 'agent/created' }, detail: 'boom' }])
    expect(logged).toEqual(['agent-profiles: agent/created failed: boom'])
  })

  it('keeps the latest ones past its limit', () => {
    const { warnings } = recording(2)
    for (const preset of ['a', 'b', 'c']) warnings.warn({ key: 'measure-failed', params: { preset } })
    expect(warnings.list().map((w) => w.params)).toEqual([{ preset: 'b' }, { preset: 'c' }])
  })
})

describe('warningLine', () => {
  it("says every warning key in an English sentence of its own that uses each of the warning's values", () => {
    const lines = new Set<string>()
    for (const [key, shape] of Object.entries(WARNINGS) as [WarningKey, { params?: readonly string[] }][]) {
      const params = Object.fromEntries((shape.params ?? []).map((name) => [name, `<${name}>`]))
      const line = warningLine({ key, params } as Warning)
      expect(line, key).toMatch(/^agent-profiles: \S/)
      for (const name of shape.params ?? []) expect(line, `${key} says ${name}`).toContain(`<${name}>`)
      lines.add(line)
    }
    expect(lines.size).toBe(Object.keys(WARNINGS).length)
  })
})
