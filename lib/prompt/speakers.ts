/**
 * Who answers each turn of a conversation when the user addresses profiles by name: the turn's speaker, the speakers
 * still waiting for their answer to the same message, and the model-facing texts that tell the model who is speaking.
 * Pure bookkeeping, one record per conversation, fed by the host wiring (lib/prompt/speakers-install.ts); it never
 * reads the store, never talks to the host and never decides what a speaker's profile contains.
 *
 * How the speaker of a turn is decided: when a turn claims its user message (the host's `agent/inbox/claimed`, which
 * fires before that turn's first prompt assembly), the message's `@` mentions are read against the profiles
 * (lib/shared/mentions.ts). The first profile named answers that turn; the others named (and, for `@all`, the rest of
 * the conversation's cast) wait in line. When a turn ends normally and someone waits, the wiring queues a relay
 * message, and the turn that claims it is answered by the next in line. A turn whose message names nobody, and every
 * turn after the conversation goes idle, is answered by the conversation's own profile (undefined here).
 */
import { readMentions, speakersOf, type MentionTarget } from '../shared/mentions.ts'
import { LIMITS } from '../state/model.ts'
import { inertBraces } from './render.ts'

/** A conversation's speaking order for the message being answered. */
interface Line {
  /** The turn the speaker answers. */
  turn: number
  /** The profile answering that turn; undefined: the conversation's own. */
  speaker?: string
  /** Profiles still to answer the same message, in order. */
  waiting: string[]
  /** Who answered the turn before when it was not the conversation's own profile (for the model's notice). */
  previous?: string
}

/** The turn of a conversation that is not running. */
const IDLE = -1

/** Profiles one message can ask for, in turn, as many as a cast holds (the rest of a longer list is ignored). */
const MAX_SPEAKERS = LIMITS.cast

/** The speakers of every conversation the host is running. */
export class SpeakerBook {
  readonly #lines = new Map<string, Line>()
  /** Relay message id → the conversation and the profile that answers the turn claiming it (queued, not claimed). */
  readonly #relays = new Map<string, { sessionId: string; speaker: string }>()

  /**
   * A turn claimed `message`: decide its speaker. `text` is the message's text when the user wrote it, undefined for
   * anything else (a relay is recognised by its id). Mid-turn claims (steering) leave the turn's speaker as it is.
   */
  claimed(
    sessionId: string,
    turn: number,
    messageId: string,
    text: string | undefined,
    profiles: readonly MentionTarget[],
    cast: readonly string[],
  ): void {
    const line = this.#lines.get(sessionId)
    if (line !== undefined && line.turn === turn) return
    const previous = line === undefined ? undefined : line.turn === IDLE ? line.previous : line.speaker
    const relayed = this.#relays.get(messageId)
    if (relayed !== undefined) {
      this.#relays.delete(messageId)
      this.#lines.set(sessionId, {
        turn,
        speaker: relayed.speaker,
        waiting: line?.waiting ?? [],
        ...(previous ? { previous } : {}),
      })
      return
    }
    const known = new Set(profiles.map((p) => p.id))
    const named =
      text === undefined
        ? []
        : speakersOf(
            readMentions(text, profiles),
            cast.filter((id) => known.has(id)),
          ).slice(0, MAX_SPEAKERS)
    const [speaker, ...waiting] = named
    this.#lines.set(sessionId, { turn, waiting, ...(speaker ? { speaker } : {}), ...(previous ? { previous } : {}) })
  }

  /** The profile answering the conversation's running turn; undefined when it is the conversation's own. */
  speaker(sessionId: string): string | undefined {
    return this.#lines.get(sessionId)?.speaker
  }

  /** Who answered the turn before the running one (or, while idle, the last turn) when that was a named profile. */
  previous(sessionId: string): string | undefined {
    return this.#lines.get(sessionId)?.previous
  }

  /**
   * The turn ended normally: the next profile in line, now bound to `relayId` (the message the caller queues so that
   * the host runs one more turn), or undefined when nobody waits. `exists` drops profiles deleted meanwhile.
   */
  next(sessionId: string, relayId: string, exists: (id: string) => boolean): string | undefined {
    const line = this.#lines.get(sessionId)
    if (line === undefined) return undefined
    while (line.waiting.length > 0) {
      const id = line.waiting.shift()!
      if (!exists(id)) continue
      this.#relays.set(relayId, { sessionId, speaker: id })
      return id
    }
    return undefined
  }

  /** The conversation stopped (finished, stopped by the user or failed): nobody answers and nobody waits any more;
   * who answered last is kept for the notice of the next turn. */
  idle(sessionId: string): void {
    // A relay still queued now was cleared with the inbox (the host's stop): it will never be claimed.
    for (const [id, relay] of this.#relays) if (relay.sessionId === sessionId) this.#relays.delete(id)
    const line = this.#lines.get(sessionId)
    if (line === undefined) return
    if (line.speaker === undefined) this.#lines.delete(sessionId)
    else this.#lines.set(sessionId, { turn: IDLE, waiting: [], previous: line.speaker })
  }

  /** A relay that will never be claimed (the host refused to queue it). */
  dropRelay(relayId: string): void {
    this.#relays.delete(relayId)
  }

  /** The conversation went away. */
  forget(sessionId: string): void {
    this.idle(sessionId)
    this.#lines.delete(sessionId)
  }
}

/** A profile's name as the model reads it, in corner quotes (an empty one reads as an unnamed profile). */
function named(name: string): string {
  return `「${name.trim() || '未命名配置'}」`
}

/** The notice at the end of the system prompt while a named profile answers in place of the conversation's own. */
export function renderSpeakerNotice(speaker: string, own: string, previous: string | undefined): string {
  const before = previous !== undefined && previous !== speaker ? `上一条回复出自${named(previous)}。` : ''
  return inertBraces(
    `# 本轮发言者\n用户点名由你${named(speaker)}回答这一轮。本对话的配置是${named(own)}，` +
      `它和其他配置的回复也在对话里；${before}这一轮只以${named(speaker)}的身份、按上面的设定回答，可以接着别人的回复说。`,
  )
}

/** The late line when the conversation's own profile answers again after another profile's turn. */
export function renderBackNotice(previous: string, own: string): string {
  return inertBraces(
    `（上一条回复出自用户点名的${named(previous)}，不是你。这一轮回到本对话的配置${named(own)}，请按系统提示里的设定回答。）`,
  )
}

/** How every relay's text opens (the offline demo tells a relay from the person's own message by it). */
export const RELAY_OPENING = '（上面的回复出自'

/** The relay's text: what the model reads before the next profile in line answers the same message. */
export function renderRelay(next: string, answered: string): string {
  return inertBraces(
    `${RELAY_OPENING}${named(answered)}。用户的同一条消息也点名了${named(next)}：现在请${named(next)}接着回答，可以回应前面的回复。）`,
  )
}
