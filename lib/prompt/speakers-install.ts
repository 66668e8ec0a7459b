/**
 * Several profiles in one conversation, in the host: reads who each turn's message addresses, runs one more turn per
 * profile waiting in line (a relay message queued at `agent/turn-stopping`), and answers who speaks in a running turn
 * (the turn reader, lib/turn/reader.ts, asks it; the prompt sections, the tool profile and the memory tools read the
 * turn reader). Owns those listeners; the bookkeeping is lib/prompt/speakers.ts's. It never writes the store and
 * never throws into the host.
 *
 * Why a turn per speaker (a relay through `followup`) rather than one more step of the same turn (`steer`): the turn
 * ledger, the turn heads and the memories-used record are kept per turn, so each answer gets its own head, survives a
 * reload and reaches a second tab with no change there; and the host's stop, which clears the inbox, ends the line.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import type { Profile } from '../state/model.ts'
import type { ProfileStore } from '../store/store.ts'
import type { SpeakerSource } from '../turn/reader.ts'
import { errorText } from '../shared/errors.ts'
import { speakerRowSource, type SpeakerRow } from '../shared/speaker-rows.ts'
import { renderBackNotice, renderRelay, renderSpeakerNotice, SpeakerBook } from './speakers.ts'
import type { Log } from '../shared/log.ts'

/** What the wiring reads of the store. */
export type SpeakerStore = Pick<ProfileStore, 'state' | 'effective'>

/** The speakers service: who answers a conversation's running turn. */
export interface Speakers extends SpeakerSource {
  /** The profile answering `sessionId`'s running turn when the user named one, else undefined (its own profile). */
  speakerOf(sessionId: string): Profile | undefined
  /** Who answered the turn before the running one when that was a named profile (for the model's notice). */
  previousOf(sessionId: string): Profile | undefined
  /**
   * The model's notice about who speaks, for the memory section of `sessionId` whose previous request was answered by
   * `seen`: while a named profile answers, every request of its turn says so (its persona is in the same system
   * prompt, so this costs the cache nothing more); the first turn back with the conversation's own profile says
   * nothing there ('') — that is said once, late, in a message after the user's (see {@link installSpeakers}), so the
   * own profile's system prompt comes back byte for byte and the provider's cache of it still serves. Undefined when
   * the speakers have nothing to say (a change of the conversation's own profile keeps the plain switch notice).
   */
  notice(sessionId: string, seen: string | undefined): string | undefined
  /** Call `fn` whenever a conversation's speaker changes; returns the unsubscribe function. */
  subscribe(fn: () => void): () => void
  /** Say that a conversation's speaker may have changed (the host listeners call it after the book moved). */
  changed(sessionId: string, before: string | undefined): void
  /** The bookkeeping (for the host listeners and tests). */
  readonly book: SpeakerBook
}

/** The user-written text of a claimed message; undefined for a plugin's or a tool's message. */
function userText(message: UserMessage): string | undefined {
  if (message.source.kind !== 'user') return undefined
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
}

/** The speakers service over `store` (no host needed: the listeners are installed by {@link installSpeakers}). */
export function createSpeakers(store: SpeakerStore): Speakers {
  const book = new SpeakerBook()
  const listeners = new Set<() => void>()
  const find = (id: string | undefined) =>
    id === undefined ? undefined : store.state.profiles.find((p) => p.id === id)
  return {
    book,
    subscribe(fn) {
      const own = () => fn()
      listeners.add(own)
      return () => void listeners.delete(own)
    },
    changed(sessionId, before) {
      if (book.speaker(sessionId) === before) return
      for (const fn of [...listeners]) fn()
    },
    speakerOf: (sessionId) => find(book.speaker(sessionId)),
    previousOf: (sessionId) => find(book.previous(sessionId)),
    notice(sessionId, seen) {
      const own = store.effective(sessionId).profile
      const speaker = find(book.speaker(sessionId))
      const previous = find(book.previous(sessionId))
      if (speaker !== undefined && speaker.id !== own.id)
        return renderSpeakerNotice(speaker.name, own.name, previous?.name)
      if (speaker === undefined && previous !== undefined && previous.id === seen && previous.id !== own.id) return ''
      return undefined
    },
  }
}

/**
 * A plugin message: `text` for the model (Chinese), and a collapsed context row for the user whose source names the
 * row's kind and profile, so that the page words it in its own language (lib/shared/speaker-rows.ts).
 */
function rowMessage(id: string, text: string, row: SpeakerRow): UserMessage {
  return Object.freeze({
    id: id as UserMessage['id'],
    role: 'user',
    content: [{ type: 'text', text }],
    source: speakerRowSource(row),
  }) as UserMessage
}

/** A relay message: the hand-over for the model, "<next> answers next" for the user. */
function relayMessage(id: string, next: Profile, answered: Profile | undefined, ownName: string): UserMessage {
  return rowMessage(id, renderRelay(next.name, answered?.name ?? ownName), { row: 'next', name: next.name })
}

/** The late line of the first turn back with the conversation's own profile. */
function backMessage(previous: Profile, own: Profile): UserMessage {
  return rowMessage(randomUUID(), renderBackNotice(previous.name, own.name), { row: 'back', name: own.name })
}

/** Install the listeners that keep `speakers` in line with the host's turns. Undone when `ctx` unloads. */
export function installSpeakers(ctx: Context, store: SpeakerStore, speakers: Speakers, log: Pick<Log, 'warn'>): void {
  const { book } = speakers
  const guarded = (what: string, fn: () => void) => {
    try {
      fn()
    } catch (error) {
      log.warn(`agent-profiles: speakers: ${what} failed: ${errorText(error)}`)
    }
  }
  const ours = (agent: Agent) => agent.session.header.origin !== 'subagent'
  // Synchronous, and before the turn's first assembly: the loop claims the message, then assembles the prompt.
  ctx.on('agent/inbox/claimed', ({ agent, message, turn }) =>
    guarded('reading a message', () => {
      if (!ours(agent)) return
      const cast = store.state.sessions.get(agent.id)?.cast ?? []
      const before = book.speaker(agent.id)
      book.claimed(agent.id, turn, message.id, userText(message), store.state.profiles, cast)
      speakers.changed(agent.id, before)
    }),
  )
  ctx.on('agent/turn-stopping', ({ agent }) =>
    guarded('handing over', () => {
      if (!ours(agent)) return
      // The user wrote again meanwhile: the line ends, the new message is what matters now.
      if (agent.inbox.nextTurn.length > 0) return book.idle(agent.id)
      const relayId = randomUUID()
      const answered = speakers.speakerOf(agent.id)
      const next = book.next(agent.id, relayId, (id) => store.state.profiles.some((p) => p.id === id))
      if (next === undefined) return
      const profile = store.state.profiles.find((p) => p.id === next)!
      try {
        agent.followup(relayMessage(relayId, profile, answered, store.effective(agent.id).profile.name))
      } catch (error) {
        book.dropRelay(relayId)
        throw error
      }
    }),
  )
  // The first request back with the conversation's own profile after a named one answered: one late line says whose
  // the last reply was, after the user's message, where it leaves the cached system prompt and history untouched.
  ctx.on('agent/pre-step', async ({ agent, step }, next) => {
    const decision = await next()
    if (decision.kind !== 'enter' || step !== 1 || !ours(agent) || book.speaker(agent.id) !== undefined) return decision
    let back: UserMessage | undefined
    guarded('the notice back', () => {
      const previous = speakers.previousOf(agent.id)
      const own = store.effective(agent.id).profile
      if (previous !== undefined && previous.id !== own.id && decision.messages.length > 0)
        back = backMessage(previous, own)
    })
    return back === undefined ? decision : { ...decision, messages: [...decision.messages, back] }
  })
  const stop = (agent: Agent, forget: boolean) => {
    const before = book.speaker(agent.id)
    if (forget) book.forget(agent.id)
    else book.idle(agent.id)
    speakers.changed(agent.id, before)
  }
  ctx.on('agent/status', ({ agent, status }) => {
    if (status === 'idle') guarded('idle', () => stop(agent, false))
  })
  ctx.on('agent/disposed', ({ agent }) => guarded('forget', () => stop(agent, true)))
}
