/**
 * Which model answers a conversation's next request: the pure rule, kept apart from the host so it can be tested
 * alone. A profile that brings a model wins over the conversation's model; a model the user picks in the composer
 * after that wins over the profile's until the next profile switch (a switch to another profile, or an edit of the
 * profile's model). It never calls the host, never checks whether a model is offered (model-choice.ts does, and falls
 * back) and never remembers anything beyond the {@link Track} it is given.
 *
 * How a composer pick is seen: the host's own selection (its `agent/request` listener in web, the launch default in
 * headless) proposes a route for every request. While nobody picks, that proposal is either what the host proposed
 * when the profile took over (`expect`), or the route this plugin applied (the host reads a conversation's last logged
 * request, which is the applied one, and model-choice.ts also writes the applied route into the host's selection so
 * that the composer shows it). Any other proposal is the user's pick.
 */
import type { ModelChoice } from '../state/model.ts'

/** A provider route and model, with the controls a choice may carry. */
export interface Route {
  provider: string
  model: string
  reasoningEffort?: string
  temperature?: number
}

/** What the rule remembers about one conversation between requests. */
export interface Track {
  /** The profile and its model choice at the last switch (see {@link switchKey}). */
  key: string
  /** The conversation's own model: what it ran on before a profile brought one, or the user's latest pick. */
  own: Route
  /** What the host proposes while nobody picks (its proposal at the switch, or the route written into its selection). */
  expect: Route
  /** The route the latest request used. */
  applied?: Route
  /** The user picked a model in the composer since the last switch. */
  picked: boolean
}

/** Where the model of a request came from. */
export type RouteSource = 'profile' | 'user' | 'conversation'

/** The outcome of one step of the rule: the track to keep and the route wanted for this request. */
export interface Step {
  track: Track
  want: Route
  source: RouteSource
}

/** Whether two routes name the same provider and model (controls aside: the composer shows provider and model). */
export function sameRoute(
  a: Pick<Route, 'provider' | 'model'> | undefined,
  b: Pick<Route, 'provider' | 'model'> | undefined,
): boolean {
  return a !== undefined && b !== undefined && a.provider === b.provider && a.model === b.model
}

/** The identity of a profile's model setting: a change of profile or of its model choice is a switch. */
export function switchKey(profileId: string, choice: ModelChoice | undefined): string {
  return JSON.stringify([
    profileId,
    choice?.provider ?? null,
    choice?.model ?? null,
    choice?.reasoningEffort ?? null,
    choice?.temperature ?? null,
  ])
}

/** The route a profile's choice names. */
export function routeOfChoice(choice: ModelChoice): Route {
  return {
    provider: choice.provider,
    model: choice.model,
    ...(choice.reasoningEffort === undefined ? {} : { reasoningEffort: choice.reasoningEffort }),
    ...(choice.temperature === undefined ? {} : { temperature: choice.temperature }),
  }
}

/**
 * One request's step. `host` is what the host proposes now; `resumedPick` says, for a conversation first seen by
 * this process, that its last logged request already ran on a pick of the user's (see model-choice.ts).
 */
export function step(
  track: Track | undefined,
  profileId: string,
  choice: ModelChoice | undefined,
  host: Route,
  resumedPick = false,
): Step {
  const key = switchKey(profileId, choice)
  let next: Track
  if (track === undefined) {
    next = { key, own: host, expect: host, picked: resumedPick && choice !== undefined && !sameRoute(host, choice) }
  } else {
    next = { ...track }
    if (!sameRoute(host, track.expect) && !sameRoute(host, track.applied)) {
      // The host proposes something nobody here put there: the user picked it.
      next.own = host
      next.expect = host
      next.picked = true
    }
    if (track.key !== key) {
      next.key = key
      next.picked = false
    }
  }
  if (choice !== undefined && !next.picked) return { track: next, want: routeOfChoice(choice), source: 'profile' }
  return { track: next, want: next.own, source: next.picked ? 'user' : 'conversation' }
}
