/**
 * Every note and refusal key an import can give (lib/shared/import-notes.ts) has words in both copy files, every place
 * token too, and the words use only the parameters the readers give; a path inside a file becomes a place the page
 * names (`data.character_book.entries[2].content` → lorebook entry 3), never the path.
 */
import { describe, expect, it } from 'vitest'
import { IMPORT_NOTE_KEYS, IMPORT_WHERE, note, whereOf } from '../../lib/shared/import-notes.ts'
import { en, zh } from '../../lib/client/copy/locales.ts'
import { importNoteText } from '../../lib/client/settings/import-report.ts'
import { translate, type ApKey, type Params } from '../../lib/client/copy/locales.ts'

const dicts = { zh, en } as Record<string, Record<string, string>>

describe('import notes in both languages', () => {
  it('words every key in Chinese and English, and every place token', () => {
    for (const [lang, dict] of Object.entries(dicts)) {
      for (const key of IMPORT_NOTE_KEYS)
        expect(dict[`import.${key}`] ?? dict[`import.${key}.other`], `${lang} import.${key}`).toMatch(/\S/)
      for (const where of IMPORT_WHERE)
        expect(dict[`import.where.${where}`], `${lang} import.where.${where}`).toMatch(/\S/)
    }
  })

  it('words a note with the place in the file, and no path or English in Chinese', () => {
    const t = (key: ApKey, params?: Params) => translate('zh', key, params)
    const split = note('bookSplit', {
      at: 'data.character_book.entries[0].content',
      length: 1553,
      count: 2,
      limit: 1000,
    })
    expect(importNoteText(t, split)).toBe('世界书第 1 条有 1553 字，分成了 2 条记忆（每条最多 1000 字）')
    const en = (key: ApKey, params?: Params) => translate('en', key, params)
    expect(importNoteText(en, split)).toBe(
      'lorebook entry 1 has 1553 characters; it became 2 memories of at most 1000 characters',
    )
    for (const key of IMPORT_NOTE_KEYS) {
      const params = {
        count: 2,
        limit: 3,
        length: 4,
        kept: 1,
        core: 1,
        size: 5,
        seconds: 10,
        more: 0,
        method: 99,
        level: '##',
        into: 'rules',
        ext: 'bmp',
        names: '「x」',
        name: '「y」',
        title: '「z」',
        value: '「v」',
        key: '「k」',
        from: '「f」',
        to: '「t」',
        profiles: 30,
        items: 90,
        effort: '「e」',
        temperature: 2,
      }
      const text = importNoteText(t, note(key, { at: 'data.description', ...params }))
      expect(text, key).not.toMatch(/\{\w+\}|data\.|\[\d+\]/)
      // Chinese words, with no English beyond the names of formats and quoted parameters.
      expect(
        text.replace(/PNG|JPEG|WebP|GIF|JSON|CHARX|zip|YAML|V2|card\.json|__proto__|constructor|prototype|bmp/g, ''),
        key,
      ).not.toMatch(/[A-Za-z]{3,}/)
    }
  })

  it("names places by token: card fields, lorebook entries, memory items, front matter keys, and a card's own key", () => {
    expect(whereOf('data.character_book.entries[4].keys')).toEqual({ where: 'bookEntry', n: 5 })
    expect(whereOf('memory item 3')).toEqual({ where: 'memoryItem', n: 3 })
    expect(whereOf('extensions.dsh-agent-profiles.profile.memory.items[0].text')).toEqual({ where: 'memoryItem', n: 1 })
    expect(whereOf('front matter tools')).toEqual({ where: 'tools' })
    expect(whereOf('speaking style (speaking cues + mes_example)')).toEqual({ where: 'speakingStyle' })
    expect(whereOf('data.mes_example')).toEqual({ where: 'mes_example' })
    expect(whereOf('file.unknown_key_7')).toEqual({ where: 'cardField', key: 'unknown_key_7' })
  })
})
