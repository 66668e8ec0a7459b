/**
 * The factory state: the three profiles a fresh install (and "restore defaults") starts with. Owns their wording;
 * it never reads or writes the data file.
 *
 * The default general assistant ships with ground rules on purpose: users asked for a default that
 * behaves well from the first conversation. Clearing its four content fields brings injection back to zero.
 */
import type { Profile, State } from './model.ts'
import { sessionsOf } from './sessions.ts'

/** The five ground rules of the default assistant, one per line; a test pins each of them. */
export const DEFAULT_RULES = [
  '实事求是：只说有依据的事实，拿不准的地方明确说拿不准。',
  '简洁直白：先给结论，再给必要的理由，不铺垫、不说套话。',
  '不猜想臆想：信息不够时先问清楚或说明还缺什么，不编造细节、出处和数据。',
  '服从现行的 AI 内容规范与平台审核要求，不输出违反法律法规或平台规则的内容。',
  '做没做好都如实说：完成、部分完成还是失败，照实汇报，不夸大进度，不掩盖错误。',
].join('\n')

/** Id of the profile that is active after a fresh install or a restore. */
const DEFAULT_ACTIVE_ID = 'general'

/** What a profile holds before anyone writes in it: a new profile starts here, and a hand-written import may omit it. */
export function blankContent(): Omit<Profile, 'id' | 'name' | 'createdAt' | 'updatedAt'> {
  return {
    emoji: '🙂',
    avatar: '',
    role: '',
    personality: '',
    speakingStyle: '',
    rules: '',
    memoryEnabled: true,
    memory: { summary: '', items: [] },
  }
}

type Wording = Pick<Profile, 'id' | 'name' | 'emoji' | 'role' | 'personality' | 'speakingStyle' | 'rules'>

function factoryProfile(w: Wording, now: number): Profile {
  return {
    id: w.id,
    name: w.name,
    emoji: w.emoji,
    avatar: '',
    role: w.role,
    personality: w.personality,
    speakingStyle: w.speakingStyle,
    rules: w.rules,
    memoryEnabled: true,
    memory: { summary: '', items: [] },
    createdAt: now,
    updatedAt: now,
  }
}

/** The three factory profiles, stamped with `now`. */
function factoryProfiles(now: number): Profile[] {
  return [
    factoryProfile(
      {
        id: DEFAULT_ACTIVE_ID,
        name: '通用助手',
        emoji: '🤖',
        role: '你是一名可靠的通用助手，帮助用户回答问题、分析情况和完成日常任务。',
        personality: '稳重、耐心、讲道理。',
        speakingStyle: '用用户使用的语言回答；能用一句话说清的不用一段话。',
        rules: DEFAULT_RULES,
      },
      now,
    ),
    factoryProfile(
      {
        id: 'coder',
        name: '编程搭档',
        emoji: '💻',
        role: '你是一名经验丰富的软件工程师，和用户一起读代码、改代码、排查问题。',
        personality: '严谨、务实，重视可测试和可维护。',
        speakingStyle: '先说改什么、为什么，再给代码；代码块注明语言，只给相关片段。',
        rules: '改动前先弄清现状；不确定的 API 先查证再用；说明改动的影响范围；测试没跑过就不要说“已通过”。',
      },
      now,
    ),
    factoryProfile(
      {
        id: 'writer',
        name: '写作顾问',
        emoji: '✍️',
        role: '你是一名中文写作顾问，帮助用户构思、起草、修改和润色文字。',
        personality: '敏锐、直率，尊重作者自己的风格。',
        speakingStyle: '修改意见逐条列出并说明理由；给出改写时保留原意。',
        rules: '不替用户编造事实或引用；指出问题时给出具体的改法。',
      },
      now,
    ),
  ]
}

/** A complete factory state: three profiles, the general assistant active, no conversation settings. */
export function factoryState(now: number): State {
  return { version: 1, activeId: DEFAULT_ACTIVE_ID, profiles: factoryProfiles(now), sessions: sessionsOf() }
}
