/**
 * How the settings page words a refusal: the field by its label and, for the rules of a name the host names
 * (`name.invisible`, `name.surrogate`, `name.bidi`), the reason in the user's language; any other refusal keeps the
 * host's own sentence.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../../lib/client/data/api.ts'
import { describeError } from '../../../lib/client/common/feedback.ts'
import { translate, type ApKey } from '../../../lib/client/copy/locales.ts'

const tIn = (locale: string) => (key: ApKey, params?: Record<string, string | number>) => translate(locale, key, params)
const refusal = (rule?: string) => new ApiError('patch.name: contains a text direction control character', 'invalid', 400, 'patch.name', undefined, rule)

describe('describeError', () => {
  it('words the rules of a name in the user\'s language, naming the field by its label', () => {
    expect(describeError(tIn('zh'), refusal('name.bidi'))).toBe('字段「名称」：含有文字方向控制符（如 U+202E），会让名称倒着显示')
    expect(describeError(tIn('en'), refusal('name.invisible'))).toBe('Field "Name": must not be empty: it holds only invisible characters')
  })

  it('keeps the host\'s sentence for a refusal without a rule, or with one the page does not know', () => {
    expect(describeError(tIn('en'), refusal())).toBe('Field "Name": patch.name: contains a text direction control character')
    expect(describeError(tIn('en'), refusal('name.unknown'))).toBe('Field "Name": patch.name: contains a text direction control character')
  })
})
