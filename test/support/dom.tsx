/**
 * jsdom helpers for the browser half's specs: mount a real React 18 tree, find elements by visible text, type and
 * click the way a user does, and stand in for the host half at the `fetch` boundary of lib/client/data/api.ts.
 * It never reaches into component internals.
 */
import { act, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { vi } from 'vitest'
import { hasHistory, type MemoryItem, type Profile, type SessionSetting, type State } from '../../lib/state/model.ts'
import type { Meta } from '../../lib/shared/meta.ts'
import type { ProfileReply } from '../../lib/shared/wire-replies.ts'
import type { TurnModel } from '../../lib/shared/models.ts'
import type { WireSession, WireState } from '../../lib/shared/wire-state.ts'
import { profileHead } from '../../lib/http/profile-head.ts'

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

/** Pixels of the memory list's scroll box and of each of its rows: jsdom lays nothing out, the windowed list needs both. */
export const LIST_LAYOUT = { height: 600, row: 60 }

// jsdom answers 0 for every size; the memory list (lib/client/common/MemoryList.tsx) lays out the rows that fit its box.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
  configurable: true,
  get(this: HTMLElement) {
    return this.classList.contains('ap-memory-scroll') ? LIST_LAYOUT.height : 0
  },
})
Object.defineProperty(HTMLElement.prototype, 'offsetHeight', {
  configurable: true,
  get(this: HTMLElement) {
    return this.classList.contains('ap-memory-row') ? LIST_LAYOUT.row : 0
  },
})

/** A mounted tree. */
export interface Mounted {
  container: HTMLElement
  rerender(ui: ReactNode): Promise<void>
  unmount(): Promise<void>
}

const mounted: Mounted[] = []

/** Mount `ui` into a fresh element of the document. */
export async function render(ui: ReactNode): Promise<Mounted> {
  const container = document.createElement('div')
  document.body.appendChild(container)
  let root: Root | undefined
  await act(async () => {
    root = createRoot(container)
    root.render(ui)
  })
  const m: Mounted = {
    container,
    rerender: async (next) => {
      await act(async () => {
        root!.render(next)
      })
    },
    unmount: async () => {
      await act(async () => {
        root!.unmount()
      })
      container.remove()
    },
  }
  mounted.push(m)
  return m
}

/** Unmount everything `render` mounted: client-setup.ts does after each test, a spec mid-test or before its own teardown. */
export async function cleanup(): Promise<void> {
  for (const m of mounted.splice(0)) await m.unmount()
  document.body.innerHTML = ''
}

/** Let pending promises, timers of `ms` and React updates settle. */
export async function settle(ms = 0): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, ms))
  })
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
}

/**
 * The element matching `selector` once it is there: work the page does after an event (reading a chosen file, a
 * fetch) can take more than one turn on a loaded machine. Fails after about two seconds.
 */
export async function found(selector: string, root: ParentNode = document): Promise<Element> {
  for (let i = 0; i < 200; i++) {
    const el = root.querySelector(selector)
    if (el !== null) return el
    await settle(10)
  }
  throw new Error(`no element matches ${selector}`)
}

/** Text of the element as a reader sees it: its text pieces separated by spaces, whitespace collapsed. */
export function text(el: Element = document.body): string {
  const parts: string[] = []
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) parts.push(node.textContent ?? '')
  return parts.join(' ').replace(/\s+/g, ' ').trim()
}

/** The innermost element whose text matches `match` (a substring or a RegExp); throws listing what was there. */
function getByText(match: string | RegExp, root: ParentNode = document.body, selector = '*'): HTMLElement {
  const test = (s: string): boolean => (typeof match === 'string' ? s.includes(match) : match.test(s))
  const hits = [...root.querySelectorAll<HTMLElement>(selector)].filter((el) => test(text(el)))
  const innermost = hits.filter((el) => !hits.some((other) => other !== el && el.contains(other)))
  if (innermost.length === 0)
    throw new Error(`no element with text ${String(match)} in: ${text(root as Element).slice(0, 400)}`)
  return innermost[0]!
}

/** The button whose label matches `match`. */
export function button(match: string | RegExp, root: ParentNode = document.body): HTMLButtonElement {
  return getByText(match, root, 'button, a') as HTMLButtonElement
}

/** The tab (role="tab") labelled `label`, with or without its unsaved mark after the label. */
export function tab(label: string, root: ParentNode = document.body): HTMLButtonElement {
  const found = [...root.querySelectorAll<HTMLButtonElement>('[role="tab"]')].find(
    (el) => text(el) === label || text(el).startsWith(`${label} `),
  )
  if (found === undefined)
    throw new Error(
      `no tab "${label}" among: ${[...root.querySelectorAll('[role="tab"]')].map((el) => text(el)).join(', ')}`,
    )
  return found
}

/** The form control labelled `label` (by <label for>, aria-label, or an enclosing <label>). */
export function field(label: string, root: ParentNode = document.body): HTMLInputElement & HTMLTextAreaElement {
  const aria = root.querySelector(`[aria-label="${label}"]`)
  if (aria instanceof HTMLInputElement || aria instanceof HTMLTextAreaElement)
    return aria as HTMLInputElement & HTMLTextAreaElement
  for (const l of root.querySelectorAll('label')) {
    if (!text(l).startsWith(label)) continue
    const target = l.htmlFor !== '' ? document.getElementById(l.htmlFor) : l.querySelector('input, textarea')
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)
      return target as HTMLInputElement & HTMLTextAreaElement
  }
  throw new Error(`no field labelled "${label}"`)
}

/** Click like a user. */
export async function click(el: Element): Promise<void> {
  await act(async () => {
    ;(el as HTMLElement).click()
  })
  await settle()
}

/** Replace the value of a React-controlled input or textarea, as typing would. */
export async function type(el: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')!.set!
  await act(async () => {
    setter.call(el, value)
    el.dispatchEvent(new Event('input', { bubbles: true }))
  })
}

/** Press Escape on `target` (the focused element's document by default), as the keyboard would. */
export async function pressEscape(target: EventTarget = document): Promise<void> {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
  })
  await settle()
}

/** Run `change` on the fake host the moment a command reaches it, before the command is applied. */
export function onCommandArrival(change: () => void): void {
  const inner = globalThis.fetch
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
    if (init?.method === 'POST' && url === '/__ap/command') change()
    return inner(url, init)
  })
}

/** Choose `file` in a file input. */
export async function chooseFile(input: HTMLInputElement, file: File): Promise<void> {
  await act(async () => {
    Object.defineProperty(input, 'files', { configurable: true, value: [file] })
    input.dispatchEvent(new Event('change', { bubbles: true }))
  })
  await settle()
}

/** One request the fake host received. */
export interface Call {
  method: string
  path: string
  body: Record<string, unknown> | undefined
}

/** A fake host answer: status (200 by default) and JSON body. */
export interface Answer {
  status?: number
  body: unknown
}

/** Replace `fetch` with `handler`; returns the calls made so far (live array). */
export function stubFetch(handler: (call: Call) => Answer | Promise<Answer>): Call[] {
  const calls: Call[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const call: Call = {
        method: init?.method ?? 'GET',
        path: String(url),
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
      }
      calls.push(call)
      const answer = await handler(call)
      return new Response(JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { 'content-type': 'application/json' },
      })
    }),
  )
  return calls
}

/** A complete profile with `over` applied. */
export function profile(over: Partial<Profile> = {}): Profile {
  return {
    id: 'p1',
    name: '通用助手',
    emoji: '🤖',
    avatar: '',
    role: '你是一名通用助手。',
    personality: '耐心',
    speakingStyle: '简洁',
    rules: '实事求是',
    memoryEnabled: true,
    memory: { summary: '', items: [] },
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...over,
  }
}

/** A memory item the user wrote at the fixtures' time, with `over` applied. */
export function memoryItem(id: string, text: string, over: Partial<MemoryItem> = {}): MemoryItem {
  return { id, text, source: 'user', at: 1_700_000_000_000, ...over }
}

/** A state holding `profiles` (the first is the default) and `sessions`. */
export function state(profiles: Profile[] = [profile()], sessions: Record<string, SessionSetting> = {}): TestState {
  return { version: 1, activeId: profiles[0]!.id, profiles, sessions }
}

/** A fake host's data: the store's state with its conversation settings as a plain record, easy to read in a spec. */
export type TestState = Omit<State, 'sessions'> & { sessions: Record<string, SessionSetting> }

/**
 * `s` in its wire form, as lib/http/wire.ts sends it: each profile as its head (avatars as they are in `s`), no
 * conversation settings, only how many there are and pin them.
 */
export function wireOf(s: TestState, undo?: Record<string, number>): WireState {
  const { sessions, memoryUndo: _undo, history: _history, profiles, user, ...rest } = s
  const pins: Record<string, number> = {}
  for (const setting of Object.values(sessions))
    if (setting.profileId !== null) pins[setting.profileId] = (pins[setting.profileId] ?? 0) + 1
  return {
    ...rest,
    profiles: profiles.map((p) => profileHead(p, p.avatar)),
    ...(undo === undefined ? {} : { undo }),
    pins,
    conversations: Object.keys(sessions).length,
    userItems: user?.items.length ?? 0,
  }
}

/**
 * The answer to `GET /__ap/profile/<id>` (whole, or with `?head` its head) from `profiles`, with whether `history`
 * holds writes of it; undefined for another request, a 404 for a profile they do not hold.
 */
export function profileAnswer(
  profiles: readonly Profile[],
  call: Call,
  revision = 1,
  history?: TestState['history'],
): Answer | undefined {
  const match = call.method === 'GET' ? /^\/__ap\/profile\/([^?]+)(\?head)?$/.exec(call.path) : null
  if (match === null) return undefined
  const p = profiles.find((x) => x.id === decodeURIComponent(match[1]!))
  if (p === undefined) return { status: 404, body: { error: { code: 'not-found', message: 'no profile' } } }
  const reply: ProfileReply =
    match[2] === undefined
      ? {
          profile: p,
          head: profileHead(p, p.avatar),
          revision,
          ...(hasHistory({ history }, { profileId: p.id }) ? { history: true as const } : {}),
        }
      : { head: profileHead(p, p.avatar) }
  return { body: reply }
}

/** One conversation of `s` as `GET /__ap/session/<id>` answers it. */
export function wireSessionOf(s: TestState, sessionId: string): WireSession {
  const setting = s.sessions[sessionId] ?? null
  const pin = setting?.profileId == null ? undefined : s.profiles.find((p) => p.id === setting.profileId)
  return {
    sessionId,
    setting,
    profileId: (pin ?? s.profiles.find((p) => p.id === s.activeId) ?? s.profiles[0]!).id,
    pinned: pin !== undefined,
    ...(hasHistory(s, { sessionId }) ? { history: true as const } : {}),
  }
}

/** The session id a `GET /__ap/session/<id>` asks for, or undefined for another request. */
export function sessionAsked(call: Call): string | undefined {
  return call.method === 'GET' && call.path.startsWith('/__ap/session/')
    ? decodeURIComponent(call.path.slice('/__ap/session/'.length))
    : undefined
}

/**
 * A host that only reads, as the conversation's views meet it: `s` as the state, each conversation's settings, and
 * `turns` (with `models`) as the turn ledger of session-1; any other request a 404 naming its path.
 */
export function readingHost(
  s: TestState,
  turns: Record<number, string> = {},
  models: Record<number, TurnModel> = {},
): (call: Call) => Answer {
  return (call) => {
    if (call.path === '/__ap/state') return { body: { state: wireOf(s), meta: meta() } }
    if (call.path === '/__ap/turns/session-1') return { body: { turns, models } }
    const asked = sessionAsked(call)
    if (asked !== undefined) return { body: wireSessionOf(s, asked) }
    return { status: 404, body: { error: { code: 'not-found', message: call.path } } }
  }
}

/** Meta as the host sends it. */
export function meta(over: Partial<Meta> = {}): Meta {
  return {
    dataFile: 'profiles.sqlite',
    counts: { profiles: 1, sessions: 0, memories: 0 },
    lastError: null,
    compressThreshold: 5000,
    memoryBudget: 3000,
    ...over,
  }
}
