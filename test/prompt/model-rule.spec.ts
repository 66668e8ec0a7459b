// The rule of which model answers a conversation's next request (lib/prompt/model-rule.ts): a profile's model over
// the conversation's, a later composer pick over the profile's until the next switch, and what the host proposes
// after this plugin wrote the profile's route into its selection.
import { describe, expect, it } from 'vitest'
import { step, type Track } from '../../lib/prompt/model-rule.ts'
import type { ModelChoice } from '../../lib/state/model.ts'

const FLASH = { provider: 'p', model: 'flash' }
const PRO = { provider: 'p', model: 'pro' }
const PRO_CHOICE: ModelChoice = { provider: 'p', model: 'pro', temperature: 0.2 }

/** Run steps in order, each with what the host proposes; the applied route is what the step wanted. */
function run(
  steps: Array<{ profile: string; choice?: ModelChoice; host: { provider: string; model: string } }>,
): Array<{ model: string; source: string }> {
  let track: Track | undefined
  return steps.map(({ profile, choice, host }) => {
    const s = step(track, profile, choice, host)
    track = { ...s.track, applied: s.want }
    return { model: s.want.model, source: s.source }
  })
}

describe('the model rule', () => {
  it('a profile without a model leaves the conversation on its own model', () => {
    expect(
      run([
        { profile: 'a', host: FLASH },
        { profile: 'a', host: PRO },
      ]),
    ).toEqual([
      { model: 'flash', source: 'conversation' },
      // The host's proposal moved (the user picked pro in the composer): that is the conversation's model now.
      { model: 'pro', source: 'user' },
    ])
  })

  it("a profile's model wins over the conversation's, with its controls", () => {
    const s = step(undefined, 'a', PRO_CHOICE, FLASH)
    expect(s.want).toEqual({ provider: 'p', model: 'pro', temperature: 0.2 })
    expect(s.source).toBe('profile')
  })

  it('while nobody picks, the host proposing the applied route (its log, or the written selection) is no pick', () => {
    expect(
      run([
        { profile: 'a', choice: PRO_CHOICE, host: FLASH },
        { profile: 'a', choice: PRO_CHOICE, host: PRO },
        { profile: 'a', choice: PRO_CHOICE, host: FLASH },
      ]).map((r) => r.source),
    ).toEqual(['profile', 'profile', 'profile'])
  })

  it("a composer pick wins until the next profile switch, and the switch brings the profile's model back", () => {
    const other: ModelChoice = { provider: 'p', model: 'pro' }
    expect(
      run([
        { profile: 'a', choice: PRO_CHOICE, host: PRO },
        { profile: 'a', choice: PRO_CHOICE, host: { provider: 'p', model: 'mini' } },
        { profile: 'a', choice: PRO_CHOICE, host: { provider: 'p', model: 'mini' } },
        { profile: 'b', choice: other, host: { provider: 'p', model: 'mini' } },
        { profile: 'b', choice: other, host: { provider: 'p', model: 'mini' } },
      ]),
    ).toEqual([
      { model: 'pro', source: 'profile' },
      { model: 'mini', source: 'user' },
      { model: 'mini', source: 'user' },
      { model: 'pro', source: 'profile' },
      { model: 'pro', source: 'profile' },
    ])
  })

  it("an edit of the profile's model is a switch too", () => {
    const faster: ModelChoice = { provider: 'p', model: 'flash' }
    expect(
      run([
        { profile: 'a', choice: PRO_CHOICE, host: PRO },
        { profile: 'a', choice: PRO_CHOICE, host: { provider: 'p', model: 'mini' } },
        { profile: 'a', choice: faster, host: { provider: 'p', model: 'mini' } },
      ]).map((r) => `${r.source}:${r.model}`),
    ).toEqual(['profile:pro', 'user:mini', 'profile:flash'])
  })

  it("a switch to a profile without a model goes back to the conversation's own model, not the previous profile's", () => {
    expect(
      run([
        { profile: 'a', choice: PRO_CHOICE, host: FLASH },
        // The host now proposes pro: this plugin wrote it into the host's selection.
        { profile: 'a', choice: PRO_CHOICE, host: PRO },
        { profile: 'plain', host: PRO },
      ]).map((r) => `${r.source}:${r.model}`),
    ).toEqual(['profile:pro', 'profile:pro', 'conversation:flash'])
  })

  it('a conversation resumed after a restart whose last turn ran on a pick keeps the pick', () => {
    const mini = { provider: 'p', model: 'mini' }
    expect(step(undefined, 'a', PRO_CHOICE, mini, true)).toMatchObject({ want: mini, source: 'user' })
    expect(step(undefined, 'a', PRO_CHOICE, mini, false)).toMatchObject({ want: { model: 'pro' }, source: 'profile' })
  })
})
