/**
 * The host's models as the page sees them: the catalog the picker lists, which model answered a turn, and what the
 * page says beside a model that could not be used. Both halves import these declarations. Types only; no behaviour.
 */
import type { ModelUnavailable } from './reasons.ts'

/** `GET /__ap/models`: the host's providers, each with its models and each model's reasoning efforts. */
export interface ModelCatalog {
  providers: Array<{
    id: string
    name: string
    models: Array<{ id: string; name: string; efforts: Array<{ id: string; name: string }>; defaultEffort?: string }>
  }>
  /** Providers whose list could not be read, or the model service missing altogether. */
  failures: ModelListFailure[]
}

/**
 * Why the picker lacks models: a provider whose list could not be read (`detail`: the host's words, quoted on the
 * page), or a host with no model service (`llm`) running, which lists none.
 */
type ModelListFailure = { provider: string; detail: string } | { missing: 'llm' }

/**
 * Which model answered one turn: the profile's (`profile`), the user's composer pick (`user`), the conversation's own
 * (`conversation`, the profile brings none), or the conversation's in place of a profile's the host no longer offers
 * (`fallback`, with the model wanted and why it was not used).
 */
export type TurnModel = {
  provider: string
  model: string
  source: 'profile' | 'user' | 'conversation' | 'fallback'
  wanted?: { provider: string; model: string }
  /** Why the wanted model was not used (see {@link ModelUnavailable}), and the host's English for its log. */
  why?: ModelUnavailable
  reason?: string
} & UnavailableDetail

/**
 * What the page says beside a {@link ModelUnavailable}: the effort refused (`effort`), and the host's or the
 * provider's own text of a refusal or a refused call (`refused`, `call-failed`), which the page quotes after its own
 * sentence, never in place of it.
 */
export interface UnavailableDetail {
  effort?: string
  detail?: string
}
