/**
 * The settings page's Profiles section: the list of profiles beside the editor of the chosen one, with the notice of
 * a draft whose fields were also saved elsewhere meanwhile (take theirs, or keep editing). It renders what the page's
 * hooks hold (use-profile-draft.ts, use-profile-commands.ts) and sends nothing itself.
 */
import type { ReactNode } from 'react'
import type { Meta } from '../../shared/meta.ts'
import type { WireState } from '../../shared/wire-state.ts'
import type { DraftField } from '../common/editing.ts'
import { useT, type ApKey } from '../copy/locales.ts'
import type { ShrunkImage } from './image.ts'
import { ProfileEditor, type EditorSection, type ProfileEditorProps } from './ProfileEditor.tsx'
import { ProfileList } from './ProfileList.tsx'
import type { ProfileCommands } from './use-profile-commands.ts'
import type { ProfileDraft } from './use-profile-draft.ts'

/** Props of {@link ProfilesPanel}. */
export interface ProfilesPanelProps {
  state: WireState
  meta: Meta | null
  draft: ProfileDraft
  commands: ProfileCommands
  /** The editor's section, kept by the page while the user moves between profiles. */
  section: EditorSection
  onSection(section: EditorSection): void
  shrink: ((file: File) => Promise<ShrunkImage>) | undefined
}

/** The list, the conflict notice and the editor. */
export function ProfilesPanel(props: ProfilesPanelProps): ReactNode {
  const t = useT()
  const { state, draft, commands } = props
  const { chosen, selected, liveDraft, dirty, conflict } = draft
  if (chosen === undefined) return null
  const value = liveDraft?.value ?? selected
  return (
    <div className="ap-split">
      <ProfileList
        state={state}
        selectedId={chosen.id}
        dirtyId={dirty ? chosen.id : null}
        busy={commands.busy}
        onSelect={(id) => {
          void commands.select(id)
        }}
        onCreate={() => {
          void commands.create()
        }}
      />
      {conflict !== null && conflict.id === chosen.id && liveDraft !== null && (
        <ConflictNotice fields={conflict.fields} draft={draft} />
      )}
      {value === undefined ? (
        <div className="ap-placeholder" role="status">
          {t('page.loading')}
        </div>
      ) : (
        <ProfileEditor key={chosen.id} value={value} {...editorProps(props)} />
      )}
    </div>
  )
}

/** The editor's props but its value: the draft's state, the commands, and the offers of the moment. */
function editorProps({ state, meta, draft, commands, section, onSection, shrink }: ProfilesPanelProps) {
  const { chosen, selected, liveDraft, newDefault } = { ...draft, newDefault: commands.newDefault }
  const id = chosen?.id ?? ''
  // Own keys only: a profile id `constructor` must not find Object's.
  const compressedAt = state.undo !== undefined && Object.hasOwn(state.undo, id) ? state.undo[id] : undefined
  const offers: Partial<ProfileEditorProps> = {}
  if (
    newDefault !== null &&
    newDefault.id === id &&
    state.activeId === id &&
    state.profiles.some((p) => p.id === newDefault.previousId)
  )
    offers.becameDefault = {
      previous: newDefault.previous,
      undo: () => {
        void commands.restoreDefault(newDefault.previousId)
      },
    }
  if (compressedAt !== undefined) offers.undoCompress = { at: compressedAt, run: () => void commands.undoCompress() }
  return {
    ...(liveDraft?.items === undefined ? {} : { items: liveDraft.items }),
    ...(liveDraft === null ? {} : { savedItems: liveDraft.base.memory.items }),
    ...(shrink === undefined ? {} : { shrink }),
    ...offers,
    savedVersion: selected,
    onItems: (items: NonNullable<ProfileEditorProps['items']>) => draft.edit({}, items),
    dirty: draft.dirty,
    changed: draft.changed,
    saving: commands.busy,
    isDefault: id === state.activeId,
    compressThreshold: meta?.compressThreshold ?? 0,
    section,
    onSection,
    onEdit: draft.edit,
    onSave: () => void commands.save(),
    onDiscard: () => draft.setDraft(null),
    onSetDefault: () => void commands.setDefault(),
    onDuplicate: () => void commands.duplicate(),
    onDelete: () => void commands.remove(),
  } satisfies Omit<ProfileEditorProps, 'value'>
}

/** Fields of the draft saved elsewhere meanwhile: the user takes theirs or keeps editing. */
function ConflictNotice({ fields, draft }: { fields: DraftField[]; draft: ProfileDraft }): ReactNode {
  const t = useT()
  return (
    <div className="ap-notice ap-conflict" role="alert" data-ap-conflict={fields.join(' ')}>
      <div>{t('editor.changedElsewhere', { fields: fields.map((f) => t(fieldLabel(f))) })}</div>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn ap-btn-small"
          onClick={() => {
            draft.setDraft(null)
          }}
        >
          {t('action.takeTheirs')}
        </button>
        <button type="button" className="ap-btn ap-btn-small ap-btn-primary" onClick={draft.keepEditing}>
          {t('action.keepEditing')}
        </button>
      </div>
    </div>
  )
}

/** The copy key naming a part of a profile in the conflict notice. */
function fieldLabel(field: DraftField): ApKey {
  return field === 'tools'
    ? 'section.tools'
    : field === 'model'
      ? 'section.model'
      : field === 'memory'
        ? 'field.items'
        : `field.${field}`
}
