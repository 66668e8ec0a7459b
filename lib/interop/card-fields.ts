/**
 * Which card fields each profile field is made of, the one table both directions read: the groups (name; description
 * + scenario → role; personality; mes_example → speaking style; system_prompt + post_history_instructions → ground
 * rules; character_book → memory), the V2 fields in the spec's order and those we never map with their defaults, a
 * group's comparable text for the digests that tell an edited card from the one we wrote, and the card fields a
 * profile value gives. It never reads a card's JSON (card-read.ts) and never builds a whole profile
 * (card-to-profile.ts) or card (profile-to-card.ts).
 */
import { memoryToBook, type MemoryImport } from './card-book.ts'
import { EXTENSION_KEY } from '../shared/files.ts'

/** The data fields of a Card V2, in the spec's order: an export writes them so, and an import knows them by name. */
export const V2_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'creator_notes',
  'system_prompt',
  'post_history_instructions',
  'alternate_greetings',
  'character_book',
  'tags',
  'creator',
  'character_version',
  'extensions',
] as const

/** A profile field made from card fields. */
export type Group = 'name' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memory'

/** Each profile field and the card fields it is made from. */
export const GROUPS: Record<Group, readonly string[]> = {
  name: ['name'],
  role: ['description', 'scenario'],
  personality: ['personality'],
  speakingStyle: ['mes_example'],
  rules: ['system_prompt', 'post_history_instructions'],
  memory: ['character_book'],
}
export const GROUP_NAMES = Object.keys(GROUPS) as Group[]
/** Every card field some group is made from. */
export const MAPPED = new Set(Object.values(GROUPS).flat())

/** V2 fields we do not map, with the value a V2 card has when it says nothing; an export writes these defaults. */
export const UNMAPPED_DEFAULTS: Record<string, unknown> = {
  first_mes: '',
  creator_notes: '',
  alternate_greetings: [],
  tags: [],
  creator: '',
  character_version: '',
  extensions: {},
}

/** The profile fields that are made from card fields, as an import gives them. */
export interface MappedFields {
  name: string
  role: string
  personality: string
  speakingStyle: string
  rules: string
  memory: MemoryImport
}

/** The card fields of a group as one comparable text; an absent field counts as its default. */
export function cardGroupText(data: Record<string, unknown>, g: Group): string {
  return JSON.stringify(GROUPS[g].map((k) => (Object.hasOwn(data, k) ? data[k] : g === 'memory' ? null : '')))
}

/** A profile value of a group as one text, for digests. */
export function profileGroupText(p: MappedFields, g: Group): string {
  return g === 'memory' ? JSON.stringify([p.memory.summary, p.memory.items.map((it) => it.text)]) : p[g]
}

/** The card fields a profile value gives when nothing of an original card is kept. */
export function exportGroup(p: MappedFields, g: Group): Record<string, unknown> {
  switch (g) {
    case 'name':
      return { name: p.name }
    case 'role':
      return { description: p.role, scenario: '' }
    case 'personality':
      return { personality: p.personality }
    case 'speakingStyle':
      return { mes_example: p.speakingStyle }
    case 'rules':
      return { system_prompt: p.rules, post_history_instructions: '' }
    case 'memory': {
      const book = memoryToBook(p.memory, EXTENSION_KEY)
      return book === undefined ? {} : { character_book: book }
    }
  }
}
