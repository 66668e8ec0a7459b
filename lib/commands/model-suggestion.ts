/**
 * What a file may say about a profile's model: a model, reasoning effort or temperature that arrives in a file (a
 * Markdown `model:` line, a card's or an envelope's model) is held as the profile's suggestion, never its model, so
 * no file moves a profile to another model, a higher effort or another temperature behind the user's back; the user
 * accepts or dismisses it in the editor's Model section (`profile.update` with `suggestion`). Pure; it never decides
 * whether the host offers the model (lib/prompt/model-choice.ts does, when the user accepts).
 */
import type { ModelChoice, Profile } from '../state/model.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { invalid } from '../validate/state.ts'

/** An imported profile with the model its file named held as a suggestion (a suggestion it carried stays one). */
export function heldAsSuggestion(p: Profile): Profile {
  if (p.model === undefined) return p
  const { model, ...rest } = p
  return { ...rest, suggestedModel: model }
}

/** The import report's line for a profile whose file suggests a model: which, with its effort and temperature. */
export function suggestionNote(p: Profile): ImportNote | undefined {
  const m = p.suggestedModel
  if (m === undefined) return undefined
  return note('modelSuggested', {
    name: p.name,
    value: `${m.provider}/${m.model}`,
    effort: m.reasoningEffort ?? '—',
    temperature: m.temperature ?? '—',
  })
}

/**
 * The profile after the user's answer to its suggestion: accepted, the suggestion becomes its model; dismissed, it is
 * gone and the model stays. Refused (naming `suggestion`) when the profile holds none.
 */
export function settleSuggestion(p: Profile, answer: 'accept' | 'dismiss'): Profile {
  const { suggestedModel, ...rest } = p
  if (suggestedModel === undefined) throw invalid('suggestion', 'this profile has no suggested model to answer')
  return answer === 'accept' ? { ...rest, model: suggestedModel } : rest
}

/** The suggested model of profile `id` when the user accepts it, for the host to check it offers that model. */
export function acceptedModel(profiles: readonly Profile[], id: unknown): ModelChoice | undefined {
  return profiles.find((p) => p.id === id)?.suggestedModel
}
