/**
 * React hook of the ⚙ panel's state ({@link ConversationPanel}): the conversation's settings and the profile it
 * answers with, the panel's draft (its note and the changes to its memories, kept while the panel is closed, see
 * surface-draft.ts) and the panel's commands with one busy state and outcome ({@link useAction}): save, clear,
 * incognito and the memory refresh. A save says which items the draft started from, so the host merges the memories
 * saved meanwhile. It asks before a draft is dropped and never renders anything but that question.
 */
import { useCallback, useEffect, type ReactNode } from 'react'
import type { SessionSetting } from '../../state/model.ts'
import type { CommandReply, WireProfile, WireSession } from '../../shared/wire-state.ts'
import type { ArgsOf } from '../../shared/commands.ts'
import { useApi, useApState, useConversation } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { useProfile } from '../data/profiles.ts'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { keepSurfaceDraft, keepTyped, typedText } from '../common/editing.ts'
import { useSurfaceDraft, type SurfaceDraft, type SurfaceRules } from '../common/surface-draft.ts'
import { draftSave, isEmptyDraft, NO_EDITS, type MemoryDraft } from '../common/memory-draft.ts'
import { noticeText } from '../common/feedback.ts'
import { useAction, type Action } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'
import { effectiveProfile, type Effective } from './conversation-profile.ts'

/** What the panel edits: the note, and the changes to the conversation's memories (only those, see memory-draft.ts). */
interface PanelValue {
  note: string
  memories: MemoryDraft
}

const valueOf = (setting: SessionSetting | undefined): PanelValue => ({ note: setting?.note ?? '', memories: NO_EDITS })
// The memories a draft holds are its edits alone, so following what is saved concerns the note only: a draft of
// memories alone (kept while the panel was closed, say) shows the note as saved now, not as it was when it started.
const RULES: SurfaceRules<PanelValue> = {
  changed: (base, value) => value.note !== base.note || !isEmptyDraft(value.memories),
  current: (saved, base) => saved.note === base.note,
  follow: (saved, draft) =>
    draft.value.note !== draft.base.note
      ? draft
      : {
          base: { ...draft.base, note: saved.note },
          value: { ...draft.value, note: saved.note },
        },
}

/** The key of a conversation's panel draft, kept while the panel is closed (see surface-draft.ts). */
export const panelDraftKey = (sessionId: string): string => `panel:${sessionId}`

/** The `session.set` patch of the panel: its note and memories. */
type PanelPatch = Pick<ArgsOf<'session.set'>['patch'], 'note' | 'memories' | 'basedOn'>

/**
 * The `session.set` patch that saves `value` (edited from `base`): only what changed; the memories the user changed
 * with the ids they touched (`basedOn`), so the host keeps every other one as saved; new items without an id (the host
 * assigns one).
 */
export function panelPatch(base: PanelValue, value: PanelValue): PanelPatch {
  const patch: PanelPatch = {}
  if (value.note !== base.note) patch.note = value.note
  if (!isEmptyDraft(value.memories)) {
    const { items, basedOn } = draftSave(value.memories)
    patch.memories = items
    patch.basedOn = basedOn
  }
  return patch
}

/** The panel's data, draft and commands. */
export interface Panel
  extends
    Pick<SurfaceDraft<PanelValue>, 'base' | 'value' | 'dirty' | 'edit' | 'restart'>,
    Pick<Action, 'busy' | 'outcome'> {
  /** The conversation's settings; undefined while they load or when it has none. */
  setting: SessionSetting | undefined
  /** The profile the conversation answers with, and whether it is pinned; null while the state loads. */
  effective: Effective | null
  /** The answering profile whole, fetched only when it has suggestions awaiting approval. */
  whole: WireProfile | undefined
  /** The confirmation dialog while a question is open. */
  dialog: ReactNode
  /** Close the panel, asking first when a draft would be dropped. */
  close(): Promise<void>
  save(): Promise<void>
  /** Clear the conversation's settings, after a confirmation. */
  clear(): Promise<void>
  /** The conversation takes the current memory from its next turn. */
  refreshMemory(): Promise<void>
  setIncognito(incognito: boolean): Promise<void>
}

/** The state of the panel of conversation `sessionId`; `onClose` closes it. */
export function usePanel(sessionId: string, onClose: () => void): Panel {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  useLive()
  const [dialog, ask] = useConfirm()
  const conversation = useConversation(sessionId)
  const effective = snap.state === null ? null : effectiveProfile(snap.state, conversation?.setting)
  const setting = effective?.setting
  // The profile's suggestions are in its memory items, which only the whole profile carries: fetched when it has some.
  const whole = useProfile(effective?.profile.pending === undefined ? undefined : effective.profile.id)
  const draft = useSurfaceDraft(panelDraftKey(sessionId), valueOf(setting), RULES)
  const { base, value, dirty, restart } = draft
  const { busy, outcome, run, say } = useAction()

  // Opening shows the latest: the memory tool and other tabs change a conversation's settings meanwhile.
  useEffect(() => {
    void client.refresh()
  }, [client])

  const close = useCallback(async () => {
    // A fact typed in the add box and not yet added is a draft as well.
    if (dirty || typedText(panelDraftKey(sessionId)) !== undefined) {
      if (!(await ask(t('panel.confirmDiscard'), { confirmLabel: t('action.discard'), danger: true }))) return
      keepSurfaceDraft(panelDraftKey(sessionId), undefined)
      keepTyped(panelDraftKey(sessionId), undefined)
    }
    onClose()
  }, [dirty, ask, t, onClose, sessionId])

  /** The settings as the command left them become the draft's start. */
  const settled = <R extends CommandReply & { session: WireSession }>(reply: R): R => {
    restart(valueOf(reply.session.setting ?? undefined))
    return reply
  }
  // Confirmed in our own words: the host's notice for a pinned conversation speaks of the pin, not of the note.
  const save = (): Promise<void> =>
    run(async () => {
      settled(await client.command('session.set', { sessionId, patch: panelPatch(base, value) }))
      return t('panel.saved')
    })
  const clear = async (): Promise<void> => {
    const count = setting?.memories.length ?? 0
    if (!(await ask(t('panel.confirmClear', { count }), { danger: true, confirmLabel: t('panel.clear') }))) return
    await run(async () => noticeText(t, settled(await client.command('session.clear', { sessionId })).notice))
  }
  // Commands that leave the draft as it is (incognito, the memory refresh change no text), said in the host's notice.
  const refreshMemory = (): Promise<void> =>
    say(async () => noticeText(t, (await client.command('session.refreshMemory', { sessionId })).notice))
  const setIncognito = (incognito: boolean): Promise<void> =>
    say(async () => noticeText(t, (await client.command('session.set', { sessionId, patch: { incognito } })).notice))

  const { edit } = draft
  return {
    base,
    value,
    dirty,
    edit,
    restart,
    busy,
    outcome,
    setting,
    effective,
    whole,
    dialog,
    close,
    save,
    clear,
    refreshMemory,
    setIncognito,
  }
}
