/**
 * The `turn.record` command: checking it against the state it follows (a conversation id, a turn number, a profile
 * that exists, the memory items its requests carried, the model of its latest request) and wording its notice. It
 * never writes the ledger (the batch does, through the database) and never decides whether anything may be written
 * (the store does).
 */
import type { Profile, State } from '../state/model.ts'
import type { Notice } from '../shared/notices.ts'
import { findProfile, notice } from '../commands/kit.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import type { Turn } from './db/ledger.ts'

/** Check a `turn.record` against the draft it will follow: the turn it records and the profile that answered. */
export function checkTurn(draft: State, cmd: CommandOf<'turn.record'>): { turn: Turn; profile: Profile } {
  const { sessionId: key, turn, memories, model } = cmd
  const profile = findProfile(draft, cmd.profileId, 'profileId')
  return {
    turn: {
      sessionId: key,
      turn,
      profileId: profile.id,
      ...(memories === undefined ? {} : { memories }),
      ...(model === undefined ? {} : { model }),
    },
    profile,
  }
}

/** The notice of a recorded turn. */
export function turnNotice(turn: Turn, profile: Profile): Notice {
  return notice('turn.recorded', { turn: turn.turn, name: profile.name })
}
