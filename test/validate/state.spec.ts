import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LIMITS } from '../../lib/state/model.ts'
import { sessionSetting, sessionSettingBySchema } from '../../lib/validate/state.ts'

const known = new Set(['general', 'coder'])
const outcome = (f: () => unknown) => {
  try {
    return { ok: f() }
  } catch (e) {
    const { code, field, limit, message } = e as { code: string; field?: string; limit?: number; message: string }
    return { code, field, limit, message }
  }
}

describe('conversation settings', () => {
  it('read on the fast path exactly as the schema reads them, accepted or refused alike', () => {
    const value = fc.oneof(
      fc.constantFrom(undefined, null, 'general', 'coder', 'nobody', 'bad id', '', 7, true, [], {}),
      fc.string({ maxLength: 12 }),
      fc.constantFrom('x'.repeat(LIMITS.note), 'x'.repeat(LIMITS.note + 1), 'a\u0001b', 'two\nlines'),
      fc.constant([{ text: '喜欢 Rust' }]),
    )
    const setting = fc.dictionary(
      fc.constantFrom('profileId', 'note', 'memories', 'incognito', 'cast', 'toString', 'extra'),
      value,
      { maxKeys: 4 },
    )
    fc.assert(
      fc.property(fc.oneof(setting, value), (v) => {
        expect(outcome(() => sessionSetting(v, 'sessions.s1', known))).toEqual(
          outcome(() => sessionSettingBySchema(v, 'sessions.s1', known)),
        )
      }),
      { numRuns: 2000 },
    )
  })
})
