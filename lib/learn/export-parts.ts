/**
 * An export's conversations as the host holds them: as JSON text, never as objects, each conversation parsed alone
 * when a pick, a plan or a run reads it. Held as objects, a 200 MB export was about 260,000 message objects on the
 * host's heap for as long as it was kept, and every full collection of the host walked them all (the longest waits
 * of every page's state probe while an export was read); text is a few hundred strings the collector never looks
 * into. The conversations are packed into parts as they are read (in the import worker, sent on as they come: a
 * worker's message is decoded whole on the host's event loop, and a part is a string, copied, not decoded), with
 * what a pick and the summary read without parsing: when each started and how many messages each holds. What the
 * conversations hold is not its concern.
 */
import type { ExportService, LearnConversation } from './conversation.ts'
import type { FileError } from '../shared/import-notes.ts'
import type { LearnFound } from '../shared/learn.ts'
import { Slices } from './slices.ts'

/** Characters of one part's text at most (a conversation larger than that is a part alone). */
const PART_CHARS = 1_000_000

/** Conversations packed as one text, and what is read of them without parsing. */
export interface PackedPart {
  /** Each conversation's JSON, one after another. */
  text: string
  /** Where each conversation's JSON ends in `text` (the next one starts there). */
  ends: number[]
  /** When each started (its `at`). */
  at: number[]
  /** How many messages each holds. */
  messages: number[]
  /** The first and last time a conversation or message of the part is dated (ms); both 0 when none is. */
  from: number
  to: number
}

/** Conversations added in order, handed to `send` packed a part at a time (each part not empty). */
export class PartPacker {
  readonly #send: (part: PackedPart) => void
  #texts: string[] = []
  #ends: number[] = []
  #at: number[] = []
  #messages: number[] = []
  #chars = 0
  #from = Infinity
  #to = 0

  constructor(send: (part: PackedPart) => void) {
    this.#send = send
  }

  /** The next conversation; the part before it is sent when it would pass the bound. */
  add(c: LearnConversation): void {
    const text = JSON.stringify(c)
    if (this.#chars + text.length > PART_CHARS) this.flush()
    this.#texts.push(text)
    this.#chars += text.length
    this.#ends.push(this.#chars)
    this.#at.push(c.at)
    this.#messages.push(c.messages.length)
    this.#dated(c.at)
    for (const m of c.messages) this.#dated(m.at)
  }

  /** Send the part under way, if it holds any conversation. */
  flush(): void {
    if (this.#texts.length > 0) {
      const dated = this.#to > 0
      this.#send({
        text: this.#texts.join(''),
        ends: this.#ends,
        at: this.#at,
        messages: this.#messages,
        from: dated ? this.#from : 0,
        to: this.#to,
      })
    }
    this.#texts = []
    this.#ends = []
    this.#at = []
    this.#messages = []
    this.#chars = 0
    this.#from = Infinity
    this.#to = 0
  }

  #dated(t: number): void {
    if (t <= 0) return
    if (t < this.#from) this.#from = t
    if (t > this.#to) this.#to = t
  }
}

/**
 * The conversations of the parts taken, in order: their texts, and for each where it lies in them, when it started
 * and how many messages it holds (arrays of numbers, no object per conversation).
 */
export class HeldConversations {
  readonly #texts: string[] = []
  readonly #part: number[] = []
  readonly #start: number[] = []
  readonly #end: number[] = []
  readonly #at: number[] = []
  readonly #messages: number[] = []
  #total = 0
  #from = 0
  #to = 0

  /** The conversations of the next part (as a PartPacker made it, on this thread or the import worker's). */
  take(part: PackedPart): void {
    const p = this.#texts.push(part.text) - 1
    let start = 0
    part.ends.forEach((end, i) => {
      this.#part.push(p)
      this.#start.push(start)
      this.#end.push(end)
      this.#at.push(part.at[i]!)
      this.#messages.push(part.messages[i]!)
      this.#total += part.messages[i]!
      start = end
    })
    if (part.to === 0) return
    if (this.#to === 0 || part.from < this.#from) this.#from = part.from
    if (part.to > this.#to) this.#to = part.to
  }

  /** How many conversations are held. */
  get length(): number {
    return this.#at.length
  }

  /** When conversation `i` started (its `at`: 0 when the export does not say). */
  startOf(i: number): number {
    return this.#at[i]!
  }

  /** How many messages conversation `i` holds. */
  messagesOf(i: number): number {
    return this.#messages[i]!
  }

  /** Conversation `i`, parsed now (a new object each time: nothing parsed is kept). */
  conversation(i: number): LearnConversation {
    const text = this.#texts[this.#part[i]!]!
    return JSON.parse(text.slice(this.#start[i], this.#end[i])) as LearnConversation
  }

  /**
   * Conversations `picks` (indices), a slice at a time: each step of the walk hands one slice of them, each parsed as
   * the reader's loop over the slice reaches it (nothing parsed is kept; walked again, parsed again). A slice ends
   * before the conversation whose characters would take `slices` past its bound, counting what the reader spent on
   * the ones before (a plan's requests), and the loop turns before the next step: one await per slice, none per
   * conversation. Each slice is to be read before the next step is taken (the walk moves on as it is read).
   */
  parsed(picks: readonly number[], slices = new Slices()): ConversationSlices {
    return { [Symbol.asyncIterator]: () => this.#walk(picks, slices) }
  }

  async *#walk(picks: readonly number[], slices: Slices): AsyncGenerator<Iterable<LearnConversation>> {
    const cursor = { next: 0 }
    for (;;) {
      yield this.#slice(picks, cursor, slices)
      if (cursor.next >= picks.length) return
      await slices.turn()
    }
  }

  *#slice(picks: readonly number[], cursor: { next: number }, slices: Slices): Generator<LearnConversation> {
    while (cursor.next < picks.length) {
      const i = picks[cursor.next]!
      const chars = this.#end[i]! - this.#start[i]!
      if (!slices.fits(chars)) return
      slices.spend(chars)
      cursor.next++
      yield this.conversation(i)
    }
  }

  /** What the conversations held are, for the user to see before choosing what to learn from. */
  found(service: ExportService): LearnFound {
    return { service, conversations: this.length, messages: this.#total, from: this.#from, to: this.#to }
  }
}

/** Conversations handed a slice at a time (see {@link HeldConversations.parsed}). */
export type ConversationSlices = AsyncIterable<Iterable<LearnConversation>>

/** An export as the host holds it: its service and its conversations as text. */
export interface HeldExport {
  service: ExportService
  conversations: HeldConversations
}

/** How reading an export ended, as the host holds it: the export, or why it cannot be read (for the page to word). */
export type HeldRead = { ok: true; export: HeldExport } | { ok: false; error: FileError }

/**
 * Conversations packed here (the user's past conversations, or an export read on this thread), held after those
 * `held` holds already.
 */
export function holdConversations(
  list: Iterable<LearnConversation>,
  held = new HeldConversations(),
): HeldConversations {
  const packer = new PartPacker((part) => {
    held.take(part)
  })
  for (const c of list) packer.add(c)
  packer.flush()
  return held
}
