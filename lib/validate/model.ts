/**
 * Validation of a profile's model choice (state/model.ts `ModelChoice`) by its schema (state/schema-state.ts
 * `ModelChoiceSchema`): the shape and limits only. Whether the host offers that model is the host's to say
 * (lib/prompt/model-choice.ts asks it when the profile is saved over HTTP, and again before every turn); this module
 * never asks it.
 */
import type { ModelChoice } from '../state/model.ts'
import { ModelChoiceSchema } from '../state/schema-state.ts'
import { parse } from './core.ts'

/** A profile's model choice, or null (a patch that removes it). */
export function modelChoice(v: unknown, field: string): ModelChoice | null {
  return v === null ? null : parse(ModelChoiceSchema, v, field)
}
