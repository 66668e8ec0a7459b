/**
 * An export's conversations packed for the way from the import worker to the host: as JSON text in parts, sent as
 * they are read, not as objects at the end. A worker's message is decoded whole on the host's event loop, and the
 * conversations of a 200 MB export (about 260,000 messages) as objects held it 0.35–0.9 s, a wait every page's state
 * probe shared; a part is a string (copied, not decoded) of at most PART_MESSAGES messages or PART_CHARS characters,
 * and the host parses one part a turn of its event loop (PartQueue), answering between parts. What the conversations
 * hold is not its concern.
 */
import type { LearnConversation } from './conversation.ts'

/** Messages of one part at most (a conversation larger than that is a part alone). */
const PART_MESSAGES = 4_000

/** Characters of the messages of one part at most. */
const PART_CHARS = 1_000_000

/** Conversations added in order, handed to `send` as JSON text a part at a time (each part not empty). */
export class PartPacker {
  readonly #send: (part: string) => void
  #part: LearnConversation[] = []
  #messages = 0
  #chars = 0

  constructor(send: (part: string) => void) {
    this.#send = send
  }

  /** The next conversation; the part before it is sent when it would pass a bound. */
  add(c: LearnConversation): void {
    let size = 0
    for (const m of c.messages) size += m.text.length
    if (this.#messages + c.messages.length > PART_MESSAGES || this.#chars + size > PART_CHARS) this.flush()
    this.#part.push(c)
    this.#messages += c.messages.length
    this.#chars += size
  }

  /** Send the part under way, if it holds any conversation. */
  flush(): void {
    if (this.#part.length > 0) this.#send(JSON.stringify(this.#part))
    this.#part = []
    this.#messages = 0
    this.#chars = 0
  }
}

/**
 * The host's side: the parts a PartPacker sent, parsed one a turn of the event loop, in order. Parsing each in the
 * worker's message handler was not enough: Node hands every message waiting on a port to its handler before the loop
 * turns, so the parts that piled up while the host was busy (a loaded machine, the worker reading on) were all parsed
 * in one go, and the loop held for all of them (a 200 MB export sends about 70 parts).
 */
export class PartQueue {
  readonly #waiting: string[] = []
  readonly #read: LearnConversation[] = []
  #draining: Promise<void> | undefined
  #dropped = false

  /** A part as it arrives; parsed on a later turn, after those before it. */
  add(packed: string): void {
    if (this.#dropped) return
    this.#waiting.push(packed)
    this.#draining ??= this.#drain()
  }

  /** The conversations of every part added, once all are parsed. */
  async all(): Promise<LearnConversation[]> {
    while (this.#draining !== undefined) await this.#draining
    return this.#read
  }

  /** Parse no more (the read failed): what waits is let go. */
  drop(): void {
    this.#dropped = true
    this.#waiting.length = 0
  }

  async #drain(): Promise<void> {
    for (let next = this.#waiting.shift(); next !== undefined; next = this.#waiting.shift()) {
      // setImmediate runs after the loop has polled: timers, requests and the port's next messages come first.
      await new Promise((resolve) => setImmediate(resolve))
      if (this.#dropped) break
      for (const c of JSON.parse(next) as LearnConversation[]) this.#read.push(c)
    }
    this.#draining = undefined
  }
}
