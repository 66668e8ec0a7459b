/**
 * The ⚙ panel of the quick switcher: this conversation's own note and conversation-only memories, edited as a
 * draft and saved together, "refresh memory" (the conversation takes the current memory from its next turn) and
 * "clear this conversation's settings". Owns that draft, kept while the panel is closed (surface-draft.ts; Escape
 * asks before dropping it, and its Save stays in sight in a sticky footer); the host merges its memories
 * with those saved meanwhile (the model's memory_save tool may add some while the user types), because the save
 * says which items the draft started from. The data lives in the shared api store. It never touches the profiles
 * themselves or the transcript.
 */
import { useCallback, useEffect, useId, useMemo, useState, type ReactNode } from 'react'
import { LIMITS, type SessionSetting } from '../../state/model.ts'
import { useApi, useApState, useConversation } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { useProfile } from '../data/profiles.ts'
import { Avatar } from '../common/Avatar.tsx'
import { Counted, countId } from '../common/Counted.tsx'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { effectiveProfile } from './conversation-profile.ts'
import { keepSurfaceDraft, keepTyped, typedText } from '../common/editing.ts'
import { useSurfaceDraft, type SurfaceRules } from '../common/surface-draft.ts'
import { draftSave, isEmptyDraft, NO_EDITS, type MemoryDraft } from '../common/memory-draft.ts'
import { describeError, noticeText } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import { MemoryList, type OtherLayer } from '../common/MemoryList.tsx'
import { requestOpen } from '../common/open-requests.ts'
import { MemoryHistory } from '../common/MemoryHistory.tsx'
import { Suggestions } from '../common/Suggestions.tsx'
import { OutcomeLine, type Outcome } from '../common/Outcome.tsx'
import { SaveDiscard } from '../common/SaveDiscard.tsx'
import { Popover, PopoverHead } from '../common/popover.tsx'
import { LiveBanner } from '../common/LiveBanner.tsx'
import type { CommandReply, WireSession } from '../../shared/wire-state.ts'
import type { ArgsOf } from '../../shared/commands.ts'

/** Props of {@link ConversationPanel}. */
export interface ConversationPanelProps {
  sessionId: string
  /** The control the panel opens next to. */
  anchor: HTMLElement | null
  onClose(): void
}

/** What the panel edits: the note, and the changes to the conversation's memories (only those, see memory-draft.ts). */
interface PanelValue {
  note: string
  memories: MemoryDraft
}

const PANEL_WIDTH = 380

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
export type PanelPatch = Pick<ArgsOf<'session.set'>['patch'], 'note' | 'memories' | 'basedOn'>

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

/** The profile's memory and the user layer, searchable in the panel too; edited on the settings page. */
function useOtherLayers(profileId: string | undefined): OtherLayer[] {
  const t = useT()
  return useMemo<OtherLayer[]>(
    () => [
      ...(profileId === undefined
        ? []
        : [
            {
              layer: 'profile' as const,
              owner: profileId,
              open: () => {
                requestOpen({ to: 'profile-memory', profileId }, t('nav'))
              },
            },
          ]),
      {
        layer: 'user',
        open: () => {
          requestOpen({ to: 'about-you' }, t('nav'))
        },
      },
    ],
    [profileId, t],
  )
}

/** The panel. */
export function ConversationPanel({ sessionId, anchor, onClose }: ConversationPanelProps): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  useLive()
  const noteId = useId()
  const [dialog, ask] = useConfirm()
  const conversation = useConversation(sessionId)
  const effective = snap.state === null ? null : effectiveProfile(snap.state, conversation?.setting)
  const setting = effective?.setting
  // The profile's suggestions are in its memory items, which only the whole profile carries: fetched when it has some.
  const whole = useProfile(effective?.profile.pending === undefined ? undefined : effective.profile.id)
  const {
    base,
    value,
    dirty,
    edit: setValue,
    restart,
  } = useSurfaceDraft(panelDraftKey(sessionId), valueOf(setting), RULES)
  const [busy, setBusy] = useState(false)
  const [feedback, setFeedback] = useState<Outcome | null>(null)

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

  const run = async (
    work: () => Promise<CommandReply & { session: WireSession }>,
    said: (reply: CommandReply) => string,
  ): Promise<void> => {
    setBusy(true)
    setFeedback(null)
    try {
      const reply = await work()
      restart(valueOf(reply.session.setting ?? undefined))
      setFeedback({ kind: 'ok', text: said(reply) })
    } catch (error) {
      setFeedback({ kind: 'error', text: describeError(t, error) })
    } finally {
      setBusy(false)
    }
  }
  // Confirmed in our own words: the host's notice for a pinned conversation speaks of the pin, not of the note.
  const save = (): Promise<void> =>
    run(
      () => client.command('session.set', { sessionId, patch: panelPatch(base, value) }),
      () => t('panel.saved'),
    )
  // A command that leaves the draft as it is (incognito, the memory refresh change no text), said in the host's notice.
  const announce = async (work: () => Promise<CommandReply>): Promise<void> => {
    try {
      setFeedback({ kind: 'ok', text: noticeText(t, (await work()).notice) })
    } catch (error) {
      setFeedback({ kind: 'error', text: describeError(t, error) })
    }
  }
  const refresh = (): Promise<void> => announce(() => client.command('session.refreshMemory', { sessionId }))
  const clear = async (): Promise<void> => {
    const count = setting?.memories.length ?? 0
    if (!(await ask(t('panel.confirmClear', { count }), { danger: true, confirmLabel: t('panel.clear') }))) return
    await run(
      () => client.command('session.clear', { sessionId }),
      (reply) => noticeText(t, reply.notice),
    )
  }

  const noteOver = value.note.length > LIMITS.note
  const profile = effective?.profile
  const others = useOtherLayers(effective?.profile.id)
  return (
    <Popover
      anchor={anchor}
      onClose={() => {
        void close()
      }}
      width={PANEL_WIDTH}
      className="ap-panel-pop"
      role="dialog"
      label={t('panel.title')}
      head={
        <PopoverHead
          title={t('panel.title')}
          onClose={() => {
            void close()
          }}
        />
      }
    >
      <LiveBanner />
      {profile !== undefined && (
        <div className="ap-panel-using">
          <Avatar src={profile.avatar} emoji={profile.emoji} size={24} label={profile.name} />
          <span>
            {t(effective?.pinned === true ? 'panel.usingPinned' : 'panel.usingDefault', {
              name: profile.name.trim() === '' ? t('list.unnamed') : profile.name,
            })}
          </span>
        </div>
      )}
      <div className="ap-field">
        <Counted id={noteId} label={t('field.note')} length={value.note.length} limit={LIMITS.note} />
        <textarea
          id={noteId}
          aria-describedby={countId(noteId)}
          className="ap-textarea"
          autoFocus
          value={value.note}
          placeholder={t('panel.notePlaceholder')}
          onChange={(e) => {
            setValue({ ...value, note: e.currentTarget.value })
          }}
        />
        <div className="ap-hint">{t('panel.noteHint')}</div>
      </div>
      <label className="ap-check">
        <input
          type="checkbox"
          checked={setting?.incognito === true}
          disabled={busy}
          onChange={(e) => {
            const incognito = e.currentTarget.checked
            void announce(() => client.command('session.set', { sessionId, patch: { incognito } }))
          }}
        />
        <span>
          <span>{t('panel.incognito')}</span>
          <br />
          <span className="ap-hint">{t('panel.incognitoHint')}</span>
        </span>
      </label>
      {whole !== undefined && (
        <Suggestions target={{ profileId: whole.id }} items={whole.memory.items} sessionId={sessionId} />
      )}
      <Suggestions target={{ sessionId }} items={setting?.memories ?? []} sessionId={sessionId} />
      <div className="ap-field-label">
        <span>{t('panel.memories')}</span>
      </div>
      <div className="ap-hint">{t('panel.memoriesHint')}</div>
      <MemoryList
        surface={panelDraftKey(sessionId)}
        layer="conversation"
        owner={sessionId}
        version={setting}
        draft={value.memories}
        limit={LIMITS.sessionMemories}
        sessionId={sessionId}
        compact
        others={others}
        onDraft={(memories) => {
          setValue({ ...value, memories })
        }}
      />
      <MemoryHistory target={{ sessionId }} disabled={dirty || busy} />
      <div className="ap-panel-refresh">
        <button
          type="button"
          className="ap-btn ap-btn-small"
          disabled={busy}
          onClick={() => {
            void refresh()
          }}
        >
          {t('panel.refreshMemory')}
        </button>
        <span className="ap-hint">{t('panel.refreshMemoryHint')}</span>
      </div>
      <OutcomeLine outcome={feedback} />
      <div className="ap-panel-actions">
        <SaveDiscard
          dirty={dirty}
          busy={busy}
          blocked={noteOver}
          onSave={save}
          onDiscard={() => {
            restart(base)
          }}
        />
        {dirty && (
          <span className="ap-dirty" role="status">
            {t('editor.unsaved')}
          </span>
        )}
        <span className="ap-grow" />
        <button
          type="button"
          className="ap-btn ap-btn-danger"
          disabled={busy || setting === undefined}
          onClick={() => {
            void clear()
          }}
        >
          {t('panel.clear')}
        </button>
      </div>
      {dialog}
    </Popover>
  )
}
