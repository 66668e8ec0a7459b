/**
 * The ⚙ panel of the quick switcher: this conversation's own note and conversation-only memories, edited as a
 * draft and saved together, "refresh memory" (the conversation takes the current memory from its next turn) and
 * "clear this conversation's settings". Owns that draft, kept while the panel is closed (surface-draft.ts; Escape
 * asks before dropping it, and its Save stays in sight in a sticky footer); the host merges its memories
 * with those saved meanwhile (the model's memory_save tool may add some while the user types), because the save
 * says which items the draft started from. The data lives in the shared api store. It never touches the profiles
 * themselves or the transcript.
 */
import { useId, useMemo, type ReactNode } from 'react'
import { LIMITS } from '../../state/model.ts'
import { Avatar } from '../common/Avatar.tsx'
import { Counted, countId } from '../common/Counted.tsx'
import { useT } from '../copy/locales.ts'
import { MemoryList } from '../common/MemoryList.tsx'
import type { OtherLayer } from '../common/use-memory-list.ts'
import { requestOpen } from '../common/open-requests.ts'
import { MemoryHistory } from '../common/MemoryHistory.tsx'
import { Suggestions } from '../common/Suggestions.tsx'
import { OutcomeLine } from '../common/Outcome.tsx'
import { SaveDiscard } from '../common/SaveDiscard.tsx'
import { Popover, PopoverHead } from '../common/popover.tsx'
import { LiveBanner } from '../common/LiveBanner.tsx'
import { panelDraftKey, usePanel, type Panel } from './use-panel.ts'

/** Props of {@link ConversationPanel}. */
export interface ConversationPanelProps {
  sessionId: string
  /** The control the panel opens next to. */
  anchor: HTMLElement | null
  onClose(): void
}

const PANEL_WIDTH = 380

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
  const panel = usePanel(sessionId, onClose)
  const { setting, effective, whole, value, dirty, busy } = panel
  const others = useOtherLayers(effective?.profile.id)
  const close = (): void => {
    void panel.close()
  }
  return (
    <Popover
      anchor={anchor}
      onClose={close}
      width={PANEL_WIDTH}
      className="ap-panel-pop"
      role="dialog"
      label={t('panel.title')}
      head={<PopoverHead title={t('panel.title')} onClose={close} />}
    >
      <LiveBanner />
      <Using panel={panel} />
      <NoteField panel={panel} />
      <label className="ap-check">
        <input
          type="checkbox"
          checked={setting?.incognito === true}
          disabled={busy}
          onChange={(e) => {
            void panel.setIncognito(e.currentTarget.checked)
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
          panel.edit({ ...value, memories })
        }}
      />
      <MemoryHistory target={{ sessionId }} disabled={dirty || busy} />
      <div className="ap-panel-refresh">
        <button
          type="button"
          className="ap-btn ap-btn-small"
          disabled={busy}
          onClick={() => {
            void panel.refreshMemory()
          }}
        >
          {t('panel.refreshMemory')}
        </button>
        <span className="ap-hint">{t('panel.refreshMemoryHint')}</span>
      </div>
      <OutcomeLine outcome={panel.outcome} />
      <Actions panel={panel} />
      {panel.dialog}
    </Popover>
  )
}

/** The profile the conversation answers with, and whether it is pinned or the default. */
function Using({ panel }: { panel: Panel }): ReactNode {
  const t = useT()
  const profile = panel.effective?.profile
  if (profile === undefined) return null
  return (
    <div className="ap-panel-using">
      <Avatar src={profile.avatar} emoji={profile.emoji} size={24} label={profile.name} />
      <span>
        {t(panel.effective?.pinned === true ? 'panel.usingPinned' : 'panel.usingDefault', {
          name: profile.name.trim() === '' ? t('list.unnamed') : profile.name,
        })}
      </span>
    </div>
  )
}

/** The conversation's note, counted against its limit. */
function NoteField({ panel }: { panel: Panel }): ReactNode {
  const t = useT()
  const noteId = useId()
  const { value } = panel
  return (
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
          panel.edit({ ...value, note: e.currentTarget.value })
        }}
      />
      <div className="ap-hint">{t('panel.noteHint')}</div>
    </div>
  )
}

/** The sticky footer: save and discard, the unsaved mark, and clearing the conversation's settings. */
function Actions({ panel }: { panel: Panel }): ReactNode {
  const t = useT()
  const { dirty, busy } = panel
  return (
    <div className="ap-panel-actions">
      <SaveDiscard
        dirty={dirty}
        busy={busy}
        blocked={panel.value.note.length > LIMITS.note}
        onSave={panel.save}
        onDiscard={() => {
          panel.restart(panel.base)
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
        disabled={busy || panel.setting === undefined}
        onClick={() => {
          void panel.clear()
        }}
      >
        {t('panel.clear')}
      </button>
    </div>
  )
}
