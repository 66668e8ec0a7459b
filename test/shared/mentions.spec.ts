/**
 * Reading `@` mentions of profiles (lib/shared/mentions.ts): what the composer warns about before sending and what the
 * host takes as the turn's speakers.
 */
import { describe, expect, it } from 'vitest'
import { ALL_ID, MENTION_SCAN_LIMIT, readMentions, speakersOf, type MentionTarget } from '../../lib/shared/mentions.ts'

const PROFILES: MentionTarget[] = [
  { id: 'coder', name: '编程搭档' },
  { id: 'teacher', name: '编程老师' },
  { id: 'review', name: 'Code Review Bot' },
  { id: 'code', name: 'Code' },
  { id: 'bob', name: 'Bob' },
  { id: 'cat', name: '🐱 猫咪' },
]

const ids = (text: string, targets = PROFILES) => readMentions(text, targets).mentions.map((m) => m.id)

describe('reading mentions', () => {
  it('finds a Chinese name that runs straight into the sentence', () => {
    const r = readMentions('@编程搭档帮我看看这段代码', PROFILES)
    expect(r.mentions).toEqual([{ id: 'coder', name: '编程搭档', start: 0, end: 5 }])
    expect(r.unknown).toEqual([])
  })

  it('prefers the longest name and keeps names with spaces whole, ignoring Latin case', () => {
    expect(ids('hey @code review bot, look')).toEqual(['review'])
    expect(ids('hey @CODE, look')).toEqual(['code'])
  })

  it('does not let a Latin name run on into a longer word', () => {
    const r = readMentions('@Bobby and @Bob2 but @Bob!', PROFILES)
    expect(r.mentions.map((m) => m.id)).toEqual(['bob'])
    expect(r.unknown).toEqual(['Bobby', 'Bob2'])
    expect(ids('@Bob先说')).toEqual(['bob'])
  })

  it('reads names that start with an emoji', () => {
    expect(ids('@🐱 猫咪 你好')).toEqual(['cat'])
  })

  it('keeps the order named and names each profile once', () => {
    expect(ids('@Bob 先说，然后 @编程搭档，再 @Bob')).toEqual(['bob', 'coder'])
  })

  it('leaves e-mail addresses, paths and code alone', () => {
    const r = readMentions(
      'mail bob@example.com, open @src/app.ts or @README.md, run `@Bob` and\n```\n@编程搭档\n```',
      PROFILES,
    )
    expect(r.mentions).toEqual([])
    expect(r.unknown).toEqual([])
  })

  it('an unclosed single backtick is literal, an unclosed fence runs to the end', () => {
    expect(ids('a ` then @Bob')).toEqual(['bob'])
    expect(ids('```\n@Bob')).toEqual([])
  })

  it('reports a word that names nobody, and one that several profiles start with', () => {
    const r = readMentions('@小明 和 @编程 呢', PROFILES)
    expect(r.unknown).toEqual(['小明'])
    expect(r.ambiguous).toEqual([{ word: '编程', ids: ['coder', 'teacher'], why: 'prefix', end: 9 }])
  })

  it('reports two profiles with the same name as ambiguous, never picking one', () => {
    const twins = [...PROFILES, { id: 'bob2', name: 'bob' }]
    const r = readMentions('@Bob hi', twins)
    expect(r.mentions).toEqual([])
    expect(r.ambiguous).toEqual([{ word: 'Bob', ids: ['bob', 'bob2'], why: 'same', end: 4 }])
  })

  it('reads @all and its Chinese words as the whole cast, after those named', () => {
    const r = readMentions('@Bob 先说，然后@所有人', PROFILES)
    expect(r.all).toBe(true)
    expect(speakersOf(r, ['coder', 'bob', 'cat'])).toEqual(['bob', 'coder', 'cat'])
    expect(readMentions('@all: thoughts?', PROFILES).all).toBe(true)
    expect(readMentions('@allison hi', PROFILES).all).toBe(false)
  })

  it('@all and its translations are words of the plugin: a profile stored under one never answers them', () => {
    const squatters = [
      ...PROFILES,
      { id: 'crowd', name: '大家' },
      { id: 'every', name: 'ALL' },
      { id: 'x', name: '所有人' },
    ]
    for (const text of ['@大家 好', '@all hi', '@所有人 看看', '@大家好']) {
      const r = readMentions(text, squatters)
      expect(r.all).toBe(true)
      expect(r.mentions).toEqual([])
      expect(r.ambiguous).toEqual([])
    }
  })

  it('a name that extends another reaches nobody when the text runs on after it, and asks', () => {
    const nested = [
      { id: 'yi', name: '乙' },
      { id: 'squatter', name: '乙帮我' },
    ]
    const r = readMentions('@乙帮我看看这段代码', nested)
    expect(r.mentions).toEqual([])
    expect(r.ambiguous).toEqual([{ word: '乙帮我', ids: ['squatter', 'yi'], why: 'nested', end: 4 }])
    // Ended by white space or punctuation, or the end of the text, the whole longer name is meant.
    expect(ids('@乙帮我 看看', nested)).toEqual(['squatter'])
    expect(ids('@乙帮我，看看', nested)).toEqual(['squatter'])
    expect(ids('问问@乙帮我', nested)).toEqual(['squatter'])
    // The shorter name with a space after it is that profile, and so is either one when it is the only match.
    expect(ids('@乙 帮我看看', nested)).toEqual(['yi'])
    expect(ids('@乙来看看', nested)).toEqual(['yi'])
  })

  it('a profile whose name starts with an all-word does not take @all, and is reached by its whole name', () => {
    const elder = [...PROFILES, { id: 'elder', name: '大家长' }]
    const r = readMentions('@大家长说几句', elder)
    expect(r.all).toBe(false)
    expect(r.mentions).toEqual([])
    expect(r.ambiguous[0]).toMatchObject({ word: '大家长', ids: ['elder', ALL_ID], why: 'nested' })
    expect(ids('@大家长 说几句', elder)).toEqual(['elder'])
    expect(readMentions('@大家 说几句', elder).all).toBe(true)
  })

  it('a message that names nobody has no speakers', () => {
    const r = readMentions('just a question', PROFILES)
    expect(speakersOf(r, ['coder'])).toEqual([])
  })

  it(`reads at most ${MENTION_SCAN_LIMIT} @ signs, however long the message`, () => {
    const text = '@x '.repeat(50_000) + '@Bob'
    const r = readMentions(text, PROFILES)
    expect(r.mentions).toEqual([])
    expect(r.unknown).toEqual(['x'])
    expect(ids('@Bob ' + '@x '.repeat(50_000))).toEqual(['bob'])
  })
})
