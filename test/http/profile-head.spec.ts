// A profile head carries the model the profile brings, its id cut so that 200 heads stay within the state reply's
// budget; a profile without a model has no such key.
import { describe, expect, it } from 'vitest'
import { HEAD_MODEL_CHARS, profileHead } from '../../lib/http/profile-head.ts'
import type { Profile } from '../../lib/state/model.ts'
import { blankContent } from '../../lib/state/defaults.ts'

const profile = (): Profile => ({ ...blankContent(), id: 'p', name: '审阅', emoji: '🔍', createdAt: 1, updatedAt: 2 })

describe('profileHead', () => {
  it('carries a short model id whole, a long one cut with "…", and no key without a model', () => {
    const base = profile()
    expect('model' in profileHead(base, '')).toBe(false)
    expect(
      profileHead({ ...base, model: { provider: 'deepseek-official', model: 'deepseek-v4-flash' } }, '').model,
    ).toBe('deepseek-v4-flash')
    const long = profileHead(
      { ...base, model: { provider: 'p', model: 'accounts/fireworks/models/llama-v3p1-405b-instruct' } },
      '',
    ).model!
    expect([...long]).toHaveLength(HEAD_MODEL_CHARS)
    expect(long).toBe('accounts/fireworks/…')
  })
})
