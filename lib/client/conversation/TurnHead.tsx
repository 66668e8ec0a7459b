/**
 * The head of one assistant turn: the avatar (44 px) and name (13 px) of the profile that answered it, how many
 * memories its requests carried (see TurnMemories.tsx), the model that answered in its tooltip, and a visible notice
 * when the profile's model was not available and the conversation's answered instead, shown once per turn, above the
 * turn's first visible answering row, or below its user message when a tool call answered first. Owns the choice of
 * that row and of that profile, and marks which it shows (`data-ap-source`: `ledger` once the turn ledger named the
 * profile that answered, `current` while the profile in effect now stands in); it never draws the reply itself (the host's renderer does, see turn-head.ts) and never writes anything.
 */
import type { ReactNode } from 'react'
import { useApState, useConversation } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { Avatar } from '../common/Avatar.tsx'
import { effectiveProfile, useTurnMemoryCount, useTurnModel, useTurnProfileId } from './conversation-profile.ts'
import { TurnMemories } from './TurnMemories.tsx'
import { useProfileById } from './turn-profiles.ts'
import { useT, type T } from '../copy/locales.ts'
import { unavailableText } from '../common/model-text.ts'
import type { ProfileHead } from '../../shared/wire-state.ts'
import type { TurnModel } from '../../shared/models.ts'

/** Edge of the turn-head avatar: 44 px, the size users asked for, the same as the editor's preview. */
const TURN_HEAD_AVATAR = 44

/** The slice of a host chat node the head reads. */
export interface ChatNodeLike {
  key: string
  kind: string
  visibility?: 'visible' | 'hidden'
  data: unknown
}

/** The slice of the host's chat snapshot the head reads: nodes by key and the node keys of each turn, in order. */
export interface ChatLike {
  nodes: { get(key: string): ChatNodeLike | undefined }
  locations: { getTurn(turn: number): readonly string[] }
}

/** The props of the host's `assistant-step` renderer the head reads (the host passes more; they are not ours). */
export interface TurnHeadProps {
  node: { key: string; data: { turn: number; step: number; status: string } }
  sessionId: string
  useSession: <R>(selector: (snapshot: { chat: ChatLike }) => R) => R
}

/** The kinds of chat row that answer a turn: a reply step, or a tool call (which may come before any text). */
const HEAD_KINDS: ReadonlySet<string> = new Set(['assistant-step', 'tool-call'])

/**
 * The key of the row the turn's head goes with, in the order the host shows the turn's rows: its first answering row
 * when that is a reply step (the head goes above it); when the model called a tool first (the "remembered" row of
 * memory_save), the turn's user message (the head goes right below it), so the avatar still heads the answer. None
 * before anything answered.
 */
export function headRowKey(chat: ChatLike, turn: number): string | undefined {
  let user: string | undefined
  for (const key of chat.locations.getTurn(turn)) {
    const node = chat.nodes.get(key)
    if (node === undefined || node.visibility === 'hidden') continue
    if (node.kind === 'user') user ??= key
    if (HEAD_KINDS.has(node.kind)) return node.kind === 'assistant-step' ? key : (user ?? key)
  }
  return undefined
}

/** The tooltip's line about the model: the one that answered when known, else the one the profile brings. */
function modelLine(t: T, answered: TurnModel | undefined, brings: string | undefined): string | undefined {
  if (answered === undefined) return brings === undefined ? undefined : t('turn.profileModel', { model: brings })
  const params = { model: answered.model, provider: answered.provider }
  if (answered.source === 'fallback') {
    return t('turn.modelFallback', {
      ...params,
      wanted: answered.wanted?.model ?? '',
      reason: unavailableText(t, answered),
    })
  }
  return t(answered.source === 'user' ? 'turn.modelUser' : 'turn.model', params)
}

/** Avatar and name above the first answering row of a turn; nothing above its later rows. */
export function TurnHead({ node, sessionId, useSession }: TurnHeadProps): ReactNode {
  const { turn, status } = node.data
  const first = useSession((snapshot) => headRowKey(snapshot.chat, turn)) === node.key
  const snap = useApState()
  useLive()
  const conversation = useConversation(sessionId)
  // Settling is a reason to look again: a turn still streaming may not be in the ledger yet.
  const answeredBy = useTurnProfileId(sessionId, first ? turn : undefined, status === 'running' ? 'running' : 'settled')
  // The profile that answered, even one this page has not heard of or one deleted since; never another profile.
  const answered = useProfileById(answeredBy)
  const memories = useTurnMemoryCount(sessionId, first ? turn : undefined)
  const model = useTurnModel(sessionId, first ? turn : undefined)
  const t = useT()
  if (!first) return null
  const state = snap.state
  // Which of the two the head shows, on the page for whoever waits on it (a spec after a reload): the ledger's record
  // of who answered, or the profile in effect now, standing in until the ledger answers.
  const source = answeredBy !== undefined ? 'ledger' : 'current'
  // Not in the ledger yet (the turn is still being written): the profile in effect now is the one answering. Until
  // the conversation's own settings are known its pin is too: showing the default meanwhile would flash a profile
  // that did not answer.
  const profile =
    answeredBy !== undefined
      ? answered
      : state === null || conversation === undefined
        ? undefined
        : effectiveProfile(state, conversation.setting)?.profile
  if (profile === null) {
    return (
      <div
        className="ap-root ap-turn-head"
        data-ap-turn-head={turn}
        data-profile-id={answeredBy}
        data-ap-source={source}
      >
        <Avatar src="" emoji="" size={TURN_HEAD_AVATAR} label={t('turn.deletedProfile')} />
        <span className="ap-turn-head-name">{t('turn.deletedProfile')}</span>
      </div>
    )
  }
  if (profile === undefined) {
    // Data still loading: keep the head's place so the reply does not jump when it arrives.
    return (
      <div className="ap-root ap-turn-head" data-ap-turn-head={turn} aria-hidden="true">
        <span className="ap-turn-head-blank" />
      </div>
    )
  }
  // A head from the state says which model the profile brings; a deleted profile's look does not.
  const line = modelLine(t, model, (profile as Partial<ProfileHead>).model)
  return (
    <div
      className="ap-root ap-turn-head"
      data-ap-turn-head={turn}
      data-profile-id={profile.id}
      data-ap-source={source}
      data-ap-model={model?.model}
      title={line === undefined ? profile.name : `${profile.name}\n${line}`}
    >
      <Avatar src={profile.avatar} emoji={profile.emoji} size={TURN_HEAD_AVATAR} label={profile.name} />
      <span className="ap-turn-head-name">{profile.name}</span>
      {memories !== undefined && memories > 0 && (
        <TurnMemories sessionId={sessionId} turn={turn} count={memories} profileId={profile.id} />
      )}
      {model?.source === 'fallback' && (
        <span className="ap-badge ap-turn-head-fallback" role="note" data-ap-model-fallback="" title={line}>
          {t('turn.modelFallbackShort', { model: model.model })}
        </span>
      )}
    </div>
  )
}
