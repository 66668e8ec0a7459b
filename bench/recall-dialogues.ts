/**
 * The conversation-shaped evaluation set of the recall benchmark: no question, but the dialogue so far (user and
 * assistant, newest last) and the stored facts the next reply should use, in Chinese and English, over the same
 * eighteen months of memory as the question set (bench/recall-data.ts) plus a few facts of their own. In most the
 * memory is named a turn or two before the last line, which only refers back ("那边有什么要注意的？"); some change the
 * subject, and the next reply needs no memory at all. Written for this plugin; it copies no public data set.
 */
import type { Said } from '../lib/memory/recall.ts'
import { START, type EvalFact } from './recall-data.ts'

/** One dialogue: the messages so far, and the ids of the facts the next reply should use (none: it needs none). */
export interface EvalDialogue {
  said: Said[]
  evidence: string[]
  lang: 'zh' | 'en'
}

const DAY = 86_400_000
const u = (text: string): Said => ({ role: 'user', text })
const a = (text: string): Said => ({ role: 'assistant', text })

/** Facts the dialogues need that the question set does not hold, by a short name, and the day each was saved. */
const OWN: [string, string, number][] = [
  ['shellfish', '用户对贝类海鲜过敏，上次去青岛出差吃了蛤蜊起了一身疹子', 230],
  ['mother', '用户的妈妈有高血压，饮食要少盐，每天早上吃降压药', 260],
  ['piano', '用户的女儿小满每周三下午四点上钢琴课，需要有人接送', 300],
  ['seasick', 'The user gets seasick easily, so ferries and boat trips are hard on them', 320],
  ['charger', 'The user charges the car at home overnight with a wall box installed in March', 350],
]

/** The dialogues' facts: the question set's and their own, found by the start of their text or by their short name. */
class DialogueFacts {
  readonly #facts: EvalFact[]
  readonly #own = new Map<string, string>()

  /** Adds the dialogues' own facts to `facts` and sorts it by the day saved again. */
  constructor(facts: EvalFact[]) {
    this.#facts = facts
    OWN.forEach(([name, text, day], i) => {
      const id = `d${i}`
      facts.push({ id, text, at: START + day * DAY + 3_600_000 })
      this.#own.set(name, id)
    })
    facts.sort((x, y) => x.at - y.at)
  }

  /** The id of the question-set fact whose text starts with `start`. */
  readonly find = (start: string): string => {
    const f = this.#facts.find((x) => x.text.startsWith(start))
    if (f === undefined) throw new Error(`no fact starts with ${start}`)
    return f.id
  }

  /** The id of the dialogues' own fact named `name`. */
  readonly o = (name: string): string => this.#own.get(name)!

  /** The Chinese dialogues. */
  chinese(): EvalDialogue[] {
    const { find, o } = this
    return [
      {
        said: [u('下周要去青岛出差三天'), a('好的，需要我帮你查一下那几天的天气吗？'), u('那边有什么要注意的？')],
        evidence: [o('shellfish')],
        lang: 'zh',
      },
      {
        said: [u('我妈妈下个月来杭州住一阵子'), a('太好了，可以陪她在西湖边走走。'), u('她来之前我要准备点什么？')],
        evidence: [o('mother')],
        lang: 'zh',
      },
      {
        said: [u('这周三下午公司要开季度会'), a('会议大概几点开始？'), u('三点到五点，会不会和家里的事撞上？')],
        evidence: [o('piano')],
        lang: 'zh',
      },
      {
        said: [
          u('帮我想想周末带豆豆去哪儿玩'),
          a('可以去城西的湿地公园，狗狗在那边能跑开。'),
          u('它最近有点掉毛，要不要先带去检查一下？'),
        ],
        evidence: [find('用户养了一只柯基犬'), find('The user takes Doudou')],
        lang: 'zh',
      },
      {
        said: [
          u('我在考虑换工作'),
          a('是想换行业，还是换一家公司？'),
          u('还是做后端，但想离家近一点，你觉得该看哪一带？'),
        ],
        evidence: [find('用户住在杭州滨江区'), find('The user works as a backend')],
        lang: 'zh',
      },
      {
        said: [u('周六约了周航吃饭'), a('好啊，你们很久没见了吧？'), u('是啊，我该给他带点什么？')],
        evidence: [find('用户的大学室友叫周航'), find('Zhou Hang is getting married')],
        lang: 'zh',
      },
      {
        said: [u('今晚想点外卖'), a('想吃中餐还是西餐？'), u('川菜吧，下单的时候帮我备注一下')],
        evidence: [find('用户讨厌香菜'), find('用户对花生过敏')],
        lang: 'zh',
      },
      {
        said: [u('最近睡得不太好'), a('可以试试睡前一小时不看手机。'), u('早上那一杯是不是也该戒了？')],
        evidence: [find('用户每天早上喝一杯美式咖啡')],
        lang: 'zh',
      },
      {
        said: [u('我想给老婆买个生日礼物'), a('她平时有什么爱好吗？'), u('她是老师，平时上课挺累的')],
        evidence: [find('用户的妻子是一名中学物理老师')],
        lang: 'zh',
      },
      {
        said: [u('这个周末天气怎么样？'), a('周六晴，周日有小雨。'), u('那周六适合去哪儿运动？')],
        evidence: [find('用户喜欢周末去爬山')],
        lang: 'zh',
      },
      {
        said: [u('我要写一篇技术文章'), a('准备写什么主题？'), u('还没想好，林博士之前给过我建议来着')],
        evidence: [find('林博士建议用户多写技术博客'), find("The user's mentor is Dr. Lin")],
        lang: 'zh',
      },
      {
        said: [u('我的柯基豆豆今天打了疫苗'), a('打完疫苗注意观察一下它的精神状态。'), u('推荐一部周末看的电影吧')],
        evidence: [],
        lang: 'zh',
      },
    ]
  }

  /** English dialogues about plans: a trip, a dinner, a school play, running, the car. */
  englishPlans(): EvalDialogue[] {
    const { find, o } = this
    return [
      {
        said: [
          u("We're planning a family trip to Xiamen in July"),
          a('Xiamen is lovely in summer, and Gulangyu is a must.'),
          u('How should we get over to the island?'),
        ],
        evidence: [o('seasick')],
        lang: 'en',
      },
      {
        said: [u('Can you help me plan dinner for Friday?'), a('Sure, how many people?'), u('Just me and the band')],
        evidence: [find('The user plays the guitar')],
        lang: 'en',
      },
      {
        said: [
          u('My daughter has a school play next Thursday'),
          a('That sounds fun! What role does she have?'),
          u("She's a tree. Remind me, what's her school called again?"),
        ],
        evidence: [find('用户的女儿叫小满'), find("Xiaoman's school")],
        lang: 'en',
      },
      {
        said: [
          u('I want to start running again'),
          a('Great idea. How often were you thinking?'),
          u('Maybe three times a week, on top of the exercise I already do'),
        ],
        evidence: [find('The user swims twice a week')],
        lang: 'en',
      },
      {
        said: [
          u('I need to buy a new charging cable'),
          a('For your phone or your laptop?'),
          u('For the car, actually. Which one fits?'),
        ],
        evidence: [find('The user drives a blue Tesla'), o('charger')],
        lang: 'en',
      },
    ]
  }

  /** English dialogues that ask after people, habits and what was said before, and one that needs no memory. */
  englishAsks(): EvalDialogue[] {
    const { find } = this
    return [
      {
        said: [
          u('Zhou Hang just texted me'),
          a('What did he say?'),
          u('He asked whether I can come next spring. Should I book flights now?'),
        ],
        evidence: [find('Zhou Hang is getting married'), find('用户的大学室友叫周航')],
        lang: 'en',
      },
      {
        said: [
          u("I'm cooking for the family tonight"),
          a('What do you have in mind?'),
          u('Something for dessert, but keep my goal for this year in mind'),
        ],
        evidence: [find('The user is trying to cut down on sugar')],
        lang: 'en',
      },
      {
        said: [
          u('Write me a summary of the design system meeting'),
          a('Here is a draft: the team reviewed the new tokens, agreed on spacing, and postponed the icon work.'),
          u('Make it shorter, and structure it the way I like'),
        ],
        evidence: [find('The user prefers answers that start with the conclusion')],
        lang: 'en',
      },
      {
        said: [
          u('My mentor wants to catch up next week'),
          a('Do you want to prepare anything for it?'),
          u('Yes. What did he advise me to do last time?'),
        ],
        evidence: [find("The user's mentor is Dr. Lin"), find('林博士建议用户多写技术博客')],
        lang: 'en',
      },
      {
        said: [
          u('I moved my one-on-one with Kevin to Thursday'),
          a('Noted.'),
          u("What's the time difference between London and New York?"),
        ],
        evidence: [],
        lang: 'en',
      },
    ]
  }
}

/**
 * The dialogues over `facts` (the question set's, in saved order), which gain the dialogues' own facts. `find` names a
 * question-set fact by the start of its text.
 */
export function buildDialogueSet(facts: EvalFact[]): EvalDialogue[] {
  const set = new DialogueFacts(facts)
  return [...set.chinese(), ...set.englishPlans(), ...set.englishAsks()]
}
