/** The database's error: why a database cannot be used (damaged, out of reach, newer). No behaviour but its fields. */
import type { LoadWhy } from '../../shared/reasons.ts'

/**
 * Why a database cannot be used: it is damaged (move it aside), out of reach (leave it as it is), or made by a newer
 * version this one cannot read (`newer`: never touch it). `message` is the log's English, `why` the page's key.
 */
export class DatabaseProblem extends Error {
  readonly why: LoadWhy
  readonly damaged: boolean
  readonly newer: boolean
  constructor(message: string, why: LoadWhy, damaged: boolean, newer = false) {
    super(message)
    this.why = why
    this.damaged = damaged
    this.newer = newer
  }
}
