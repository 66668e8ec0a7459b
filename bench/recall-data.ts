/**
 * The long-history evaluation set of the recall benchmark, made by a seeded generator (the same set on every run):
 * eighteen months of one user's memory — about 2,400 one-line facts in Chinese and English, most of them the
 * day-to-day noise a long-used assistant accumulates (meeting notes, errands, moods, preferences) — and questions
 * about the facts that matter, each naming the facts it needs (its evidence). Questions paraphrase (other words than
 * the fact's), ask "when" (the answer is the day a fact was saved or the date it states), or need two facts.
 * Written for this plugin; it copies no public data set and was not fitted to one.
 */
import type { Rng } from '../test/support/fuzz.ts'

/** One stored fact. */
export interface EvalFact {
  id: string
  text: string
  at: number
}

/** One question, with the ids of the facts it needs and its kind. */
export interface EvalQuestion {
  text: string
  evidence: string[]
  kind: 'paraphrase' | 'when' | 'two-fact'
  lang: 'zh' | 'en'
}

const DAY = 86_400_000
/** The first day of the history, and "now" for the questions (its last day). */
export const START = new Date(2024, 0, 1, 9).getTime()
export const DAYS = 540
export const NOW = START + DAYS * DAY

const ZH_MONTH = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二']
const EN_MONTH = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/**
 * mulberry32, the set's own generator. The benchmark's figures are measured on exactly this set, so it is drawn from a
 * generator that no library update can change (the random tests draw from fast-check instead: test/support/fuzz.ts).
 */
function fixedRng(seed: number): Rng {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  return { next, int, pick: (xs) => xs[int(xs.length)]!, chance: (p) => next() < p }
}

/** The set as it is drawn: every section draws from one generator in a fixed order, so the set never changes. */
class EvalSetBuilder {
  readonly facts: EvalFact[] = []
  readonly questions: EvalQuestion[] = []
  readonly r: Rng
  #n = 0

  constructor(seed: number) {
    this.r = fixedRng(seed)
  }

  /** Store a fact saved on `day` (at a drawn hour); its id. */
  readonly add = (text: string, day: number): string => {
    const id = `f${this.#n++}`
    this.facts.push({ id, text, at: START + day * DAY + this.r.int(10) * 3_600_000 })
    return id
  }

  /** A day within four after `day`. */
  readonly at = (day: number): number => day + this.r.int(5)

  /** The day a stored fact was saved. */
  readonly dayOf = (id: string): Date => new Date(this.facts.find((f) => f.id === id)!.at)

  /** Noise: what a long-used assistant hears about every day. */
  noise(): void {
    const { r, add } = this
    const projects = [
      '支付网关',
      '推荐系统',
      '数据看板',
      '客服机器人',
      'billing service',
      'search indexer',
      'mobile app',
      'design system',
    ]
    const people = ['老张', '小李', '王姐', 'Kevin', 'Sarah', '陈工', 'Tom', '赵经理']
    const zhNoise = [
      (p: string, q: string) => `今天和${q}开会讨论了${p}的进度，下周继续`,
      (p: string) => `${p}的接口文档还没写完，打算周末补上`,
      (p: string, q: string) => `${q}提醒用户${p}的预算要在月底前提交`,
      () => `用户今天有点累，想早点下班`,
      (p: string) => `用户觉得${p}的代码评审太慢了`,
      () => `用户午饭吃了一碗牛肉面`,
      (p: string, q: string) => `${q}请用户帮忙看一下${p}的报错日志`,
      () => `用户说最近睡得不太好，打算少喝咖啡`,
      (p: string) => `用户把${p}的发布时间推迟了一周`,
      () => `用户下午去超市买了些水果和牛奶`,
    ]
    const enNoise = [
      (p: string, q: string) => `The user had a sync with ${q} about the ${p} roadmap`,
      (p: string) => `The user needs to fix flaky tests in the ${p}`,
      () => `The user felt tired today and wanted a short answer`,
      (p: string, q: string) => `${q} asked the user to review a pull request for the ${p}`,
      () => `The user grabbed coffee with a colleague in the afternoon`,
      (p: string) => `The user thinks the ${p} deployment script is too slow`,
      () => `The user went grocery shopping after work`,
      (p: string, q: string) => `The user and ${q} argued about naming in the ${p}`,
    ]
    for (let i = 0; i < 2_250; i++) {
      const day = Math.floor((i / 2_250) * DAYS)
      const p = r.pick(projects)
      const q = r.pick(people)
      const text = r.next() < 0.55 ? r.pick(zhNoise)(p, q) : r.pick(enNoise)(p, q)
      add(`${text}（第${i}条）`.replace('（第', r.next() < 0.5 ? '（记录' : '（第'), day)
    }
  }

  /** Residence and work (paraphrased questions: other words than the fact's). */
  residence(): void {
    const { add, at, questions } = this
    const home = add('用户住在杭州滨江区，离钱塘江不远', at(20))
    const work = add('The user works as a backend engineer at a fintech startup', at(35))
    const office = add('用户的公司在杭州西溪园区', at(36))
    questions.push(
      { text: '我家在哪个城市？', evidence: [home], kind: 'paraphrase', lang: 'zh' },
      { text: 'Where do I live these days?', evidence: [home], kind: 'paraphrase', lang: 'en' },
      { text: '我是做什么工作的？', evidence: [work], kind: 'paraphrase', lang: 'zh' },
      { text: "What's my job again?", evidence: [work], kind: 'paraphrase', lang: 'en' },
      { text: '我上班的地方和家离得远吗？', evidence: [home, office], kind: 'two-fact', lang: 'zh' },
    )
  }

  /** Family and pets. */
  family(): void {
    const { add, at, questions } = this
    const daughter = add('用户的女儿叫小满，今年上小学二年级', at(50))
    const school = add("Xiaoman's school is Qiushi Primary School", at(52))
    const dog = add('用户养了一只柯基犬，名字叫豆豆', at(80))
    const vet = add('The user takes Doudou to the Happy Paws clinic for checkups', at(140))
    const wife = add('用户的妻子是一名中学物理老师', at(60))
    questions.push(
      { text: '我闺女叫什么名字？', evidence: [daughter], kind: 'paraphrase', lang: 'zh' },
      { text: 'Which school does my daughter go to?', evidence: [daughter, school], kind: 'two-fact', lang: 'en' },
      { text: '我家的狗狗叫啥？', evidence: [dog], kind: 'paraphrase', lang: 'zh' },
      {
        text: 'What is my pet called and where does it see the vet?',
        evidence: [dog, vet],
        kind: 'two-fact',
        lang: 'en',
      },
      { text: '我老婆是教什么的？', evidence: [wife], kind: 'paraphrase', lang: 'zh' },
      { text: 'What does my wife do for a living?', evidence: [wife], kind: 'paraphrase', lang: 'en' },
    )
  }

  /** Health and food. */
  health(): void {
    const { add, at, questions } = this
    const allergy = add('用户对花生过敏，吃东西要特别小心', at(100))
    const diet = add('The user is trying to cut down on sugar this year', at(110))
    const coffee = add('用户每天早上喝一杯美式咖啡', at(90))
    questions.push(
      { text: '有什么东西我不能吃？', evidence: [allergy], kind: 'paraphrase', lang: 'zh' },
      { text: 'Am I allergic to anything?', evidence: [allergy], kind: 'paraphrase', lang: 'en' },
      { text: '帮我挑个甜点，记得我今年在控糖', evidence: [diet], kind: 'paraphrase', lang: 'zh' },
      { text: 'What do I usually drink in the morning?', evidence: [coffee], kind: 'paraphrase', lang: 'en' },
    )
  }

  /** Trips: "when" questions answered by the day the fact was saved, or by a date the fact states. */
  trips(): void {
    const { r, add, at, dayOf, questions } = this
    const trips: [string, string, string][] = [
      ['苏州', 'Suzhou', '看园林'],
      ['成都', 'Chengdu', '吃火锅'],
      ['京都', 'Kyoto', '看红叶'],
      ['青岛', 'Qingdao', '看海'],
      ['西安', "Xi'an", '看兵马俑'],
      ['厦门', 'Xiamen', '逛鼓浪屿'],
      ['大理', 'Dali', '骑行洱海'],
      ['新加坡', 'Singapore', '参加技术大会'],
    ]
    trips.forEach(([zh, en, what], i) => {
      const day = at(150 + i * 45)
      const stated = r.next() < 0.5
      const date = new Date(START + day * DAY)
      const text =
        i % 2 === 0
          ? `用户${stated ? `${date.getMonth() + 1}月${date.getDate()}日` : '这周末'}去${zh}${what}，玩得很开心`
          : `The user ${stated ? `went to ${en} on ${EN_MONTH[date.getMonth()]} ${date.getDate()}` : `spent the weekend in ${en}`} and loved it`
      const id = add(text, day)
      questions.push(
        i % 2 === 0
          ? { text: `我是什么时候去的${zh}？`, evidence: [id], kind: 'when', lang: 'zh' }
          : { text: `When was my trip to ${en}?`, evidence: [id], kind: 'when', lang: 'en' },
      )
      const month = dayOf(id).getMonth()
      const year = dayOf(id).getFullYear()
      questions.push(
        i % 2 === 0
          ? {
              text: `${year}年${ZH_MONTH[month]}月我出去旅游了吗？去了哪儿？`,
              evidence: [id],
              kind: 'when',
              lang: 'zh',
            }
          : { text: `Did I travel anywhere in ${EN_MONTH[month]} ${year}?`, evidence: [id], kind: 'when', lang: 'en' },
      )
    })
  }

  /** Trips asked by a season ("去年夏天", "last autumn": months relative to NOW), and things done last week. */
  seasons(): void {
    const { facts, add, questions } = this
    const tripIds = facts.filter((f) => /去.+，玩得很开心|The user (?:went to|spent the weekend in)/.test(f.text))
    const inMonths = (year: number, months: number[]) =>
      tripIds
        .filter((f) =>
          months.some((m) => {
            const d = new Date(year, m, 1)
            const at = new Date(f.at)
            return at.getFullYear() === d.getFullYear() && at.getMonth() === d.getMonth()
          }),
        )
        .map((f) => f.id)
    const now = new Date(NOW)
    const seasons: [string, number, number[], EvalQuestion['lang']][] = [
      ['去年夏天我去哪儿旅游了？', now.getFullYear() - 1, [5, 6, 7], 'zh'],
      ['Where did I travel last autumn?', now.getFullYear() - 1, [8, 9, 10], 'en'],
      ['去年秋天我出去玩过吗？', now.getFullYear() - 1, [8, 9, 10], 'zh'],
      ['Did I take any trips last winter?', now.getFullYear() - 1, [11, 12, 13], 'en'],
    ]
    for (const [text, year, months, lang] of seasons) {
      const evidence = inMonths(year, months)
      if (evidence.length > 0) questions.push({ text, evidence, kind: 'when', lang })
    }
    const weekday = (now.getDay() + 6) % 7
    const car = add('用户把车送去4S店做了保养，换了机油和刹车片', DAYS - weekday - 6)
    const dentist = add('The user had two fillings done at the dentist', DAYS - weekday - 3)
    questions.push(
      { text: '上周我的车做了什么？', evidence: [car], kind: 'when', lang: 'zh' },
      { text: 'What did I get done last week at the dentist?', evidence: [dentist], kind: 'when', lang: 'en' },
    )
  }

  /** Events stated with a date, asked by the date. */
  events(): void {
    const { add, at, questions } = this
    const events: [string, string][] = [
      ['用户搬进了新家', 'The user moved into the new apartment'],
      ['用户拿到了驾照', 'The user got a driving licence'],
      ['用户的父亲做了膝盖手术', "The user's father had knee surgery"],
      ['用户第一次跑完半程马拉松', 'The user finished a first half marathon'],
      ['用户升职成了技术主管', 'The user was promoted to tech lead'],
      ['用户买了一辆电动车', 'The user bought an electric car'],
    ]
    events.forEach(([zh, en], i) => {
      const day = at(200 + i * 50)
      const d = new Date(START + day * DAY)
      const lang = i % 2 === 0 ? 'zh' : 'en'
      const id = add(
        lang === 'zh'
          ? `${zh}（${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日）`
          : `${en} on ${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`,
        day,
      )
      questions.push(
        lang === 'zh'
          ? { text: `${d.getMonth() + 1}月${d.getDate()}号那天发生了什么大事？`, evidence: [id], kind: 'when', lang }
          : {
              text: `What happened on ${EN_MONTH[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}?`,
              evidence: [id],
              kind: 'when',
              lang,
            },
      )
    })
  }

  /** Preferences and habits, paraphrased. */
  preferences(): void {
    const { add, at, questions } = this
    const prefs: [string, string, EvalQuestion['lang']][] = [
      ['用户喜欢周末去爬山，最爱的是北高峰', '周末适合我做什么运动？', 'zh'],
      ['The user plays the guitar in a small band on Fridays', 'What instrument do I play?', 'en'],
      ['用户最喜欢的作家是刘慈欣', '推荐一本我可能会喜欢的小说', 'zh'],
      ['The user prefers answers that start with the conclusion', 'How do I like your answers structured?', 'en'],
      ['用户正在学日语，目标是明年考N2', '我在学哪门外语？', 'zh'],
      ['The user drives a blue Tesla Model 3', 'What car do I have?', 'en'],
      ['用户讨厌香菜，点菜时不要放', '点外卖时我有什么忌口？', 'zh'],
      ['The user swims twice a week at the community pool', 'How often do I exercise in the water?', 'en'],
    ]
    prefs.forEach(([fact, q, lang], i) => {
      const id = add(fact, at(60 + i * 55))
      questions.push({ text: q, evidence: [id], kind: 'paraphrase', lang })
    })
  }

  /** Two facts about the same person. */
  people(): void {
    const { add, at, questions } = this
    const friend = add('用户的大学室友叫周航，现在在深圳做芯片设计', at(300))
    const friendNews = add('Zhou Hang is getting married next spring and invited the user', at(420))
    const mentor = add("The user's mentor is Dr. Lin, who runs the data team", at(260))
    const mentorTip = add('林博士建议用户多写技术博客', at(330))
    questions.push(
      { text: '周航最近有什么消息？他在哪儿工作？', evidence: [friend, friendNews], kind: 'two-fact', lang: 'zh' },
      {
        text: 'Who is my mentor and what did they advise me to do?',
        evidence: [mentor, mentorTip],
        kind: 'two-fact',
        lang: 'en',
      },
    )
  }
}

/** Build the set: `facts` in the order they were saved, and the questions. */
export function buildEvalSet(seed = 26): { facts: EvalFact[]; questions: EvalQuestion[] } {
  const set = new EvalSetBuilder(seed)
  set.noise()
  set.residence()
  set.family()
  set.health()
  set.trips()
  set.seasons()
  set.events()
  set.preferences()
  set.people()
  set.facts.sort((a, b) => a.at - b.at)
  return { facts: set.facts, questions: set.questions }
}
