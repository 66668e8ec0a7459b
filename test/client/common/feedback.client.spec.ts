/**
 * How the page words what the host answers: a refusal from its code, field, limit and rule (the host's own sentence
 * only for a code the page has no words for), and a command's notice from its key and values, in the page's
 * language, with the plural form its count needs and the clauses whose values are not 0.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../../lib/client/data/call.ts'
import { describeError, noticeText } from '../../../lib/client/common/feedback.ts'
import { translate, type ApKey, type Params } from '../../../lib/client/copy/locales.ts'
import type { Notice } from '../../../lib/shared/notices.ts'

const tIn = (locale: string) => (key: ApKey, params?: Params) => translate(locale, key, params)
const refusal = (rule?: string) =>
  new ApiError('patch.name: contains a text direction control character', 'invalid', 400, 'patch.name', undefined, rule)
const CJK = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/

describe('describeError', () => {
  it("words the rules of a name in the user's language, naming the field by its label", () => {
    expect(describeError(tIn('zh'), refusal('name.bidi'))).toBe(
      '「名称」：含有文字方向控制符（如 U+202E），会让名称倒着显示',
    )
    expect(describeError(tIn('en'), refusal('name.invisible'))).toBe(
      'Field "Name": must not be empty: it holds only invisible characters',
    )
  })

  it('words a read that met a damaged page of the data file: what is damaged, that nothing is deleted, what happens next', () => {
    const damaged = new ApiError(
      'the memory items of "general" could not be read: profiles.sqlite is damaged (database disk image is malformed)',
      'io',
      500,
      undefined,
      undefined,
      'data.damaged',
    )
    expect(describeError(tIn('en'), damaged)).toBe(
      'This could not be read: a part of the data file is damaged. Nothing was changed, and nothing is deleted: the file is being checked now, and at the next start of dsh it is kept aside as it is and every readable row is copied into a new one. Everything else can still be used meanwhile.',
    )
    expect(describeError(tIn('zh'), damaged)).toBe(
      '读不出来：数据文件有一部分已损坏。什么都没有改，也不会删掉任何东西：现在正在检查这个文件，dsh 下次启动时会把它原样放到一边，把所有还能读的行复制到新文件里。其余的内容在这期间照常可用。',
    )
  })

  it("words a refusal without a rule from its code, never with the host's developer sentence", () => {
    expect(describeError(tIn('en'), refusal())).toBe(
      'Field "Name": is not in a form that can be saved; nothing was saved',
    )
    expect(describeError(tIn('en'), refusal('name.unknown'))).toBe(
      'Field "Name": is not in a form that can be saved; nothing was saved',
    )
    expect(describeError(tIn('zh'), refusal())).not.toContain('patch.name')
  })

  it('says a limit in characters for a text and in entries for a list, with the plural the limit needs', () => {
    const long = new ApiError(
      'patch.memory.items[3].text: is 1200 characters, over the limit of 1000',
      'invalid',
      400,
      'patch.memory.items[3].text',
      1000,
    )
    expect(describeError(tIn('en'), long)).toBe('Field "Memory text": at most 1000 characters')
    expect(describeError(tIn('zh'), long)).toBe('「记忆内容」：最多 1000 字')
    const many = new ApiError('profiles: already holds 50 profiles, the limit', 'invalid', 400, 'profiles', 50)
    expect(describeError(tIn('en'), many)).toBe('Field "Profiles": at most 50 entries')
    const one = new ApiError('cast: over the limit', 'invalid', 400, 'patch.cast', 1)
    expect(describeError(tIn('en'), one)).toBe('Field "Cast": at most 1 entry')
  })

  it('names an unknown field as "this value", not by the program\'s path', () => {
    const e = new ApiError('patch.basedOn: applies only together with patch.memory', 'invalid', 400, 'patch.basedOn')
    expect(describeError(tIn('zh'), e)).toBe('「这项内容」：这项内容不符合要求，没有保存')
    expect(CJK.test(describeError(tIn('en'), e))).toBe(false)
  })

  it('words a conflict by its rule, and a body over the cap with its size', () => {
    const same = new ApiError(
      'text: another memory item already says this',
      'conflict',
      409,
      'text',
      undefined,
      'memory.same',
    )
    expect(describeError(tIn('en'), same)).toBe('Field "Memory text": another memory item already says this')
    const last = new ApiError(
      'id: the last profile cannot be deleted',
      'conflict',
      409,
      'id',
      undefined,
      'profile.last',
    )
    expect(describeError(tIn('zh'), last)).toBe('这是最后一套配置，不能删除：至少要留一套。')
    const big = new ApiError('the body exceeds the limit of 1048576 bytes', 'too-large', 413, undefined, 1048576)
    expect(describeError(tIn('en'), big)).toBe('Not saved: this is too large; the limit is 1.0 MB.')
  })

  it("says a lost connection and a lock without the browser's or the host's English", () => {
    expect(describeError(tIn('zh'), new ApiError('Failed to fetch', 'network', 0))).toBe(
      '没有连上插件服务：dsh 还在运行吗？稍后再试。',
    )
    expect(describeError(tIn('zh'), new ApiError('database is locked', 'locked', 409))).not.toContain('locked')
  })

  it("keeps the host's sentence only for a code this page does not know", () => {
    expect(describeError(tIn('en'), new ApiError('a newer host says why', 'brand-new', 400))).toBe(
      'a newer host says why',
    )
  })
})

describe('noticeText', () => {
  const say = (locale: string, notice: Notice) => noticeText(tIn(locale), notice)

  it("words every notice in the page's language from its key and values", () => {
    expect(say('en', { key: 'session.pinned', params: { name: 'Writer' } })).toBe(
      'This conversation uses "Writer" from the next turn',
    )
    expect(say('zh', { key: 'session.pinned', params: { name: '写手' } })).toBe('本对话固定使用「写手」，下一轮起生效')
    expect(say('en', { key: 'memory.removed' })).toBe('Deleted a memory')
    expect(say('en', { key: 'memory.updated' })).toBe('Memory updated')
  })

  it('takes the plural form the count needs in English; Chinese has one form', () => {
    expect(say('en', { key: 'user.saved', params: { count: 1 } })).toBe('Saved 1 memory about you')
    expect(say('en', { key: 'user.saved', params: { count: 3 } })).toBe('Saved 3 memories about you')
    expect(say('zh', { key: 'user.saved', params: { count: 1 } })).toBe('已保存关于你的记忆（1 条）')
  })

  it('adds a clause for each value that is not 0, each in its own plural form', () => {
    const added = { key: 'memory.added', params: { count: 2, replaced: 1, duplicates: 0 } } as const
    expect(say('en', added)).toBe('Saved 2 memories; it replaces 1 older one')
    expect(say('zh', added)).toBe('已存入 2 条记忆，取代了 1 条旧的')
    const deleted = {
      key: 'profile.deleted',
      params: { name: '程序员', unbound: 3, uncast: 1, active: '通用助手' },
    } as const
    expect(say('zh', deleted)).toBe(
      '已删除「程序员」，3 个对话改回跟随默认配置，已从 1 个对话的阵容中去掉；默认配置改为「通用助手」',
    )
    expect(say('en', { key: 'profile.deleted', params: { name: 'Coder', unbound: 0, uncast: 0, active: '' } })).toBe(
      'Deleted "Coder"',
    )
  })

  it('says a list of names as the language lists them', () => {
    const cast = { key: 'session.cast', params: { names: ['贝塔', 'Alpha'], count: 2 } } as const
    expect(say('zh', cast)).toBe('本对话的阵容：贝塔和Alpha；@所有人 会依次请它们回答')
    expect(say('en', { key: 'session.cast', params: { names: ['Beta', 'Alpha', 'Gamma'], count: 3 } })).toBe(
      "This conversation's cast: Beta, Alpha, and Gamma; @all asks each of them in turn",
    )
  })
})
