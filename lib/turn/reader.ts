/**
 * Who acts in a conversation's running turn: the speaker answering it (the profile the user named, else the
 * conversation's own), that own profile, the pin and the conversation's settings, read at the moment of asking. The
 * parts that act for a turn (prompt sections, recall, the memory tools, the tool profile, model choice) read this;
 * `store.effective()` stays the conversation's own profile for everyone. It owns no state of its own (the speakers
 * book is lib/prompt/speakers.ts's) and never writes the store.
 */
import type { Profile, SessionSetting } from '../state/model.ts'
import type { ProfileStore } from '../store/store.ts'

/** A conversation's running turn, as the parts that act for it see it. */
export interface TurnView {
  /** The profile answering this turn: the one the user named for it, else the conversation's own. */
  readonly speaker: Profile
  /** The conversation's own profile (its pin, else the default), whoever answers this turn. */
  readonly own: Profile
  /** Whether `speaker` is a profile the user named for this turn rather than the conversation's own. */
  readonly named: boolean
  /** Whether the conversation pins its own profile. */
  readonly pinned: boolean
  /** The conversation's settings (incognito, its own memories): the conversation's, whoever speaks. */
  readonly setting: SessionSetting | undefined
}

/** Who answers a conversation's running turn when the user named a profile (lib/prompt/speakers-install.ts). */
export interface SpeakerSource {
  /** The named profile answering `sessionId`'s running turn, else undefined. */
  speakerOf(sessionId: string): Profile | undefined
  /** Call `fn` whenever a conversation's speaker changes; returns the unsubscribe function. */
  subscribe(fn: () => void): () => void
}

/** The reader the parts that act for a turn are handed. */
export interface TurnReader {
  /** `sessionId`'s running turn now. */
  of(sessionId: string): TurnView
  /** Call `fn` when what {@link of} answers may have changed: a store change, or a speaker change. */
  onChange(fn: () => void): () => void
}

/**
 * A turn reader over the store and the speakers (none: the conversation's own profile answers every turn). A store
 * without `onChange` (a part that only reads at assembly time) gets a reader whose `onChange` hears the speakers only.
 */
export function createTurnReader(
  store: Pick<ProfileStore, 'effective'> & Partial<Pick<ProfileStore, 'onChange'>>,
  speakers?: SpeakerSource,
): TurnReader {
  return {
    of(sessionId) {
      const { profile: own, pinned, setting } = store.effective(sessionId)
      const named = speakers?.speakerOf(sessionId)
      const speaker = named === undefined || named.id === own.id ? own : named
      return { speaker, own, named: speaker !== own, pinned, setting }
    },
    onChange(fn) {
      const offStore = store.onChange?.(() => fn())
      const offSpeakers = speakers?.subscribe(fn)
      return () => {
        offStore?.()
        offSpeakers?.()
      }
    },
  }
}
