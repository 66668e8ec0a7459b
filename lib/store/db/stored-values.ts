/**
 * What the rows become in the state: the functions that turn a row's parsed shape into the state's value, giving an
 * item what it was saved without (its source, its time) as the provenance policy says. That policy is the commands'
 * (lib/provenance); lib/store hands these functions to every load and reload it asks of the database, so store/db
 * applies the policy without importing it, and the commands can sit above store/db. Types only.
 */
import type { Memory, MemoryItem, MemoryWrite, Profile, SessionSetting, State } from '../../state/model.ts'
import type {
  ParsedItem,
  ParsedProfile,
  ParsedSetting,
  ParsedState,
  ParsedUndo,
  ParsedWrite,
} from '../../validate/state.ts'

/** The state's values of checked rows, read at one time (what an item saved without a time is given). */
export interface StoredValues {
  item(parsed: ParsedItem): MemoryItem
  profile(parsed: ParsedProfile, field: string): Profile
  setting(parsed: ParsedSetting, field: string): SessionSetting
  undo(parsed: ParsedUndo, field: string): { memory: Memory; at: number }
  write(parsed: ParsedWrite, field: string): MemoryWrite
  /** A whole state: the old data file a migration reads. */
  state(parsed: ParsedState, field: string): State
}

/** The values of rows read at `now`. */
export type StoredValuesAt = (now: number) => StoredValues
