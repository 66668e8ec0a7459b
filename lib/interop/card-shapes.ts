/**
 * JSON that is not a Character Card V2/V3 but is meant as a character: a V1 card, the camelCase "Tavern-like" shape
 * (`systemPrompt`, `firstMessage`, `exampleDialogue`…), the old TavernAI/Pygmalion keys (`char_persona`…), and the
 * role files of chat apps (a name and a prompt under a key of their own, often nested). Recognizes which one a JSON
 * object is and gives the card `data` it maps to; every key that carried text and is not used is named in a warning,
 * and an object with nothing usable is refused with what it looked like. Pure; card-read.ts reads the result as a card.
 */
import { note, type ImportNote } from '../shared/import-notes.ts'
import { isRecord } from '../validate/core.ts'
import { MAPPED, V2_FIELDS } from './card-fields.ts'
import { ImportError } from '../shared/errors.ts'

/** Card data fields a plain object may carry by their own names: V1's, V2's without the wrapper, V3's nickname. */
const CARD_FIELDS = new Set<string>([...V2_FIELDS, 'nickname'])
const V1_FIELDS = new Set(['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example'])
/** Card fields whose text reaches the profile (name aside): an object with one of them is a card. */
const PROFILE_FIELDS = [...MAPPED].filter((k) => k !== 'name')

/** Other spellings of card fields, compared without case, `_` or `-`. */
const ALIASES = new Map<string, string>(
  Object.entries({
    firstmessage: 'first_mes',
    firstmes: 'first_mes',
    chargreeting: 'first_mes',
    greeting: 'first_mes',
    exampledialogue: 'mes_example',
    exampledialogues: 'mes_example',
    mesexample: 'mes_example',
    examplemessages: 'mes_example',
    systemprompt: 'system_prompt',
    posthistoryinstructions: 'post_history_instructions',
    jailbreak: 'post_history_instructions',
    creatornotes: 'creator_notes',
    creatornote: 'creator_notes',
    alternategreetings: 'alternate_greetings',
    characterbook: 'character_book',
    lorebook: 'character_book',
    characterversion: 'character_version',
    charname: 'name',
    charactername: 'name',
    charpersona: 'personality',
    worldscenario: 'scenario',
  }),
)

/** Keys a chat app's role file keeps its prompt under, and its name (compared without case, `_` or `-`). */
const PROMPT_KEYS = [
  'prompt',
  'systemrole',
  'system',
  'instructions',
  'instruction',
  'persona',
  'roleprompt',
  'roledefinition',
  'roledescription',
  'characterprompt',
  'botprompt',
  'presetprompt',
  '提示词',
  '系统提示词',
  '人设',
  '角色设定',
  '设定',
  '指令',
]
const NAME_KEYS = [
  'name',
  'title',
  'rolename',
  'charactername',
  'agentname',
  'botname',
  'displayname',
  'nickname',
  '名称',
  '名字',
  '角色名',
  '角色名称',
]
const GREETING_KEYS = [
  'greeting',
  'openingmessage',
  'openingstatement',
  'welcomemessage',
  'firstmessage',
  '开场白',
  '欢迎语',
]
/** Objects inside a role file that hold its fields (LobeHub `meta`/`config`, Open WebUI `params`/`meta`…). */
const NESTS = ['meta', 'config', 'params', 'data', 'character', 'role', 'agent', 'settings', 'info']

const bare = (k: string) => k.replace(/[\s_-]/g, '').toLowerCase()

/** Each key path whose value is (or holds) text, with how many characters: what a warning names. */
function textKeys(v: unknown, path: string, out: [string, number][]): void {
  if (typeof v === 'string') {
    if (v.trim() !== '') out.push([path, v.length])
  } else if (Array.isArray(v)) {
    const n = v.filter((x): x is string => typeof x === 'string').reduce((s, x) => s + x.length, 0)
    if (n > 0) out.push([path, n])
  } else if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) textKeys(x, path === '' ? k : `${path}.${k}`, out)
  }
}

const hasText = (v: unknown): boolean =>
  typeof v === 'string' ? v.trim() !== '' : Array.isArray(v) ? v.length > 0 : isRecord(v)

/** What a plain object gives as a card: its `data`, and whether it is a V1 card as it stands. */
export interface ShapedCard {
  data: Record<string, unknown>
  v1: boolean
}

/** A card as a card reader's fields: card field names and their other spellings (`systemPrompt` → system_prompt). */
function asCardFields(o: Record<string, unknown>, field: string, w: ImportNote[]): ShapedCard | undefined {
  const data: Record<string, unknown> = {}
  const renamed: string[] = []
  const other: string[] = []
  for (const [k, v] of Object.entries(o)) {
    const to = CARD_FIELDS.has(k) ? k : ALIASES.get(bare(k))
    if (to === undefined || (Object.hasOwn(data, to) && CARD_FIELDS.has(k) === false)) {
      other.push(k)
      continue
    }
    if (to !== k) renamed.push(`${k} → ${to}`)
    data[to] = v
  }
  if (!PROFILE_FIELDS.some((k) => hasText(data[k]))) return undefined
  // A role file's prompt beside card fields is its instructions: leaving it out would lose what the file is about.
  const prompt = other.find((k) => PROMPT_KEYS.includes(bare(k)) && typeof o[k] === 'string')
  if (prompt !== undefined && !Object.hasOwn(data, 'system_prompt')) {
    data.system_prompt = o[prompt]
    renamed.push(`${prompt} → system_prompt`)
    other.splice(other.indexOf(prompt), 1)
  }
  const v1 = renamed.length === 0 && other.length === 0 && Object.keys(data).every((k) => V1_FIELDS.has(k))
  if (renamed.length > 0) w.push(note('tavernLike'))
  for (const k of other) {
    const found: [string, number][] = []
    textKeys(o[k], k, found)
    for (const [path, n] of found) w.push(note('unusedText', { at: `${field}.${path}`, length: n }))
    data[k] = o[k]
  }
  return { data, v1 }
}

/** The first value under one of `keys` in the object or in one of its nested objects, with its path. */
function pick(o: Record<string, unknown>, keys: readonly string[], used: Set<string>): string | undefined {
  const look = (x: Record<string, unknown>, prefix: string): string | undefined => {
    for (const [k, v] of Object.entries(x)) {
      if (keys.includes(bare(k)) && typeof v === 'string' && v.trim() !== '') {
        used.add(prefix + k)
        return v
      }
    }
    return undefined
  }
  const top = look(o, '')
  if (top !== undefined) return top
  for (const n of NESTS) {
    const nest = Object.entries(o).find(([k, v]) => bare(k) === n && isRecord(v))
    const found = nest === undefined ? undefined : look(nest[1] as Record<string, unknown>, `${nest[0]}.`)
    if (found !== undefined) return found
  }
  return undefined
}

/** A chat app's role file: its name and prompt (the prompt becomes the card's description, so the role). */
function asRoleFile(o: Record<string, unknown>, field: string, w: ImportNote[]): ShapedCard | undefined {
  const used = new Set<string>()
  const prompt = pick(o, PROMPT_KEYS, used)
  if (prompt === undefined) return undefined
  const data: Record<string, unknown> = { description: prompt }
  const name = pick(o, NAME_KEYS, used)
  if (name !== undefined) data.name = name
  const greeting = pick(o, GREETING_KEYS, used)
  if (greeting !== undefined) data.first_mes = greeting
  w.push(note('roleFile'))
  const found: [string, number][] = []
  textKeys(o, '', found)
  for (const [path, n] of found) if (!used.has(path)) w.push(note('notImported', { at: `${field}.${path}`, length: n }))
  return { data, v1: false }
}

/** A JSON object without a card's `spec`/`data` as card data, or a refusal that says what it looked like. */
export function shapedCard(o: Record<string, unknown>, field: string, w: ImportNote[]): ShapedCard {
  const card = asCardFields(o, field, w) ?? asRoleFile(o, field, w)
  if (card !== undefined) return card
  throw new ImportError(field, 'notCard')
}
