/**
 * The editor of one profile: its actions (set as default, duplicate, delete), then its fields in four sections —
 * Profile (name, emoji, avatar, role, personality, speaking style, ground rules), Memory (on/off, summary, items,
 * undoing a compression, the history of memory writes), Tools (the tool profile), Model (the model it brings) and Preview (what the model sees) — with character counts against
 * the limits, and the save bar under every section. It edits a draft handed in by the page and reports changes; the
 * draft belongs to the page, so it outlives a change of section. It never saves or deletes by itself.
 */
import { useId, useState, type ReactNode } from 'react'
import { LIMITS, type Memory, type MemoryItem, type Profile } from '../../state/model.ts'
import { graphemeCount } from '../../state/graphemes.ts'
import { Counted, countId } from '../common/Counted.tsx'
import { AvatarPicker } from './AvatarPicker.tsx'
import type { DraftField } from '../common/editing.ts'
import { applyDraft, NO_EDITS, type MemoryDraft } from '../common/memory-draft.ts'
import { formatTime } from '../common/feedback.ts'
import type { ShrunkImage } from './image.ts'
import { activeLocale, useT, type ApKey, type T } from '../copy/locales.ts'
import { MemoryEditor } from './MemoryEditor.tsx'
import { MemoryHistory } from '../common/MemoryHistory.tsx'
import { Suggestions } from '../common/Suggestions.tsx'
import { PreviewPane } from './PreviewPane.tsx'
import { Tabs } from './Tabs.tsx'
import { ToolProfileSection } from './ToolProfileEditor.tsx'
import { ModelSection } from './ModelEditor.tsx'
import { draftProblems } from './draft-problems.ts'

/** The editor's sections, in tab order. */
const EDITOR_SECTIONS = ['profile', 'memory', 'tools', 'model', 'preview'] as const

/** One section of the editor. */
export type EditorSection = (typeof EDITOR_SECTIONS)[number]

/** The section each changed part of a draft is edited in (the rest are on the Profile section). */
const SECTION_OF: Partial<Record<DraftField, EditorSection>> = {
  memoryEnabled: 'memory',
  memoryMode: 'memory',
  memory: 'memory',
  tools: 'tools',
  model: 'model',
}

/** Props of {@link ProfileEditor}. */
export interface ProfileEditorProps {
  /** The draft (or the saved profile while nothing is edited); its memory items are the core as saved. */
  value: Profile
  /** The draft's changes to the memory items (absent: none). */
  items?: MemoryDraft
  /** Changes whenever the profile as saved changes (the saved profile itself): the memory list reads its rows again. */
  savedVersion?: unknown
  onItems?(next: MemoryDraft): void
  dirty: boolean
  /** The parts the draft changed; their sections carry the unsaved mark. */
  changed?: readonly DraftField[]
  /** The memory items as saved while a draft is open: the ones it changed are marked unsaved. */
  savedItems?: readonly MemoryItem[]
  saving: boolean
  isDefault: boolean
  /**
   * Present while this profile, just created, is the default the previous one was (+ New profile makes it so): the
   * editor says so under its title, where the user is looking, with the one click that gives the default back.
   */
  becameDefault?: { previous: string; undo(): void }
  /** Memory characters above which the background job compresses. */
  compressThreshold: number
  /** Present while the last compression can be undone: when it ran, and what restores the memory before it. */
  undoCompress?: { at: number; run(): void }
  /** The section shown, when the page keeps it (so it stays while the user moves between profiles); without it the
   * editor keeps its own, starting on Profile. */
  section?: EditorSection
  onSection?(section: EditorSection): void
  onEdit(patch: Partial<Profile>): void
  onSave(): void
  onDiscard(): void
  onSetDefault(): void
  onDuplicate(): void
  onDelete(): void
  /** Passed to the avatar picker (tests replace the canvas step). */
  shrink?: (file: File) => Promise<ShrunkImage>
}

type TextField = 'name' | 'emoji' | 'role' | 'personality' | 'speakingStyle' | 'rules'

const LONG_FIELDS: readonly { field: Exclude<TextField, 'name' | 'emoji'>; hint: ApKey; rows: number }[] = [
  { field: 'role', hint: 'hint.role', rows: 3 },
  { field: 'personality', hint: 'hint.personality', rows: 3 },
  { field: 'speakingStyle', hint: 'hint.speakingStyle', rows: 3 },
  { field: 'rules', hint: 'hint.rules', rows: 6 },
]

/** The Profile section: who the agent is. */
function ProfileFields({ value, onEdit, shrink }: Pick<ProfileEditorProps, 'value' | 'onEdit' | 'shrink'>): ReactNode {
  const t = useT()
  const ids = useId()
  const displayName = value.name.trim() === '' ? t('list.unnamed') : value.name
  return (
    <>
      <div className="ap-grid2">
        <div className="ap-field">
          <Counted id={`${ids}name`} label={t('field.name')} length={value.name.length} limit={LIMITS.name} />
          <input
            id={`${ids}name`}
            aria-describedby={countId(`${ids}name`)}
            className="ap-input"
            value={value.name}
            onChange={(e) => {
              onEdit({ name: e.currentTarget.value })
            }}
          />
        </div>
        <div className="ap-field">
          <Counted
            id={`${ids}emoji`}
            label={t('field.emoji')}
            length={graphemeCount(value.emoji)}
            limit={LIMITS.emoji}
          />
          <input
            id={`${ids}emoji`}
            aria-describedby={countId(`${ids}emoji`)}
            className="ap-input"
            value={value.emoji}
            onChange={(e) => {
              onEdit({ emoji: e.currentTarget.value })
            }}
          />
        </div>
      </div>
      <AvatarPicker
        value={value.avatar}
        emoji={value.emoji}
        name={displayName}
        onChange={(avatar) => {
          onEdit({ avatar })
        }}
        {...(shrink === undefined ? {} : { shrink })}
      />
      {LONG_FIELDS.map(({ field, hint, rows }) => (
        <div className="ap-field" key={field}>
          <Counted
            id={`${ids}${field}`}
            label={t(`field.${field}`)}
            length={value[field].length}
            limit={LIMITS[field]}
          />
          <textarea
            id={`${ids}${field}`}
            aria-describedby={countId(`${ids}${field}`)}
            className="ap-textarea"
            rows={rows}
            value={value[field]}
            onChange={(e) => {
              onEdit({ [field]: e.currentTarget.value })
            }}
          />
          <span className="ap-hint">{t(hint)}</span>
        </div>
      ))}
    </>
  )
}

/** The Memory section: whether memory reaches the prompt, the memory itself, and undoing the last compression. */
function MemoryFields({
  value,
  items = NO_EDITS,
  savedVersion,
  dirty,
  saving,
  compressThreshold,
  undoCompress,
  onEdit,
  onItems,
}: Pick<
  ProfileEditorProps,
  'value' | 'items' | 'savedVersion' | 'dirty' | 'saving' | 'compressThreshold' | 'undoCompress' | 'onEdit' | 'onItems'
>): ReactNode {
  const t = useT()
  return (
    <>
      <label className="ap-check">
        <input
          type="checkbox"
          checked={value.memoryEnabled}
          disabled={value.library !== undefined}
          onChange={(e) => {
            onEdit({ memoryEnabled: e.currentTarget.checked })
          }}
        />
        <span>
          <span>{t('field.memoryEnabled')}</span>
          <br />
          <span className="ap-hint">{t('hint.memoryEnabled')}</span>
        </span>
      </label>
      <label className="ap-field">
        <span className="ap-field-label">{t('field.memoryMode')}</span>
        <select
          className="ap-input"
          value={value.memoryMode ?? 'auto'}
          disabled={value.library !== undefined}
          onChange={(e) => {
            onEdit({ memoryMode: e.currentTarget.value === 'ask' ? 'ask' : 'auto' })
          }}
        >
          <option value="auto">{t('memoryMode.auto')}</option>
          <option value="ask">{t('memoryMode.ask')}</option>
        </select>
        <span className="ap-hint">{t('hint.memoryMode')}</span>
      </label>
      {/* Decided at once, apart from the draft: the draft keeps each suggestion as the host has it. */}
      <Suggestions target={{ profileId: value.id }} items={value.memory.items} />
      <MemoryEditor
        profileId={value.id}
        memory={value.memory}
        items={items}
        version={savedVersion}
        threshold={compressThreshold}
        onChange={(memory: Memory) => {
          onEdit({ memory })
        }}
        onItems={(next) => {
          onItems?.(next)
        }}
      />
      {undoCompress !== undefined && (
        <div className="ap-row">
          {/* Not over a draft: the draft was made from the compressed memory the undo replaces. */}
          <button type="button" className="ap-btn ap-btn-small" disabled={dirty || saving} onClick={undoCompress.run}>
            {t('memory.undo')}
          </button>
          <span className="ap-hint">{t('memory.undoHint', { time: formatTime(activeLocale(), undoCompress.at) })}</span>
        </div>
      )}
      {/* Not over a draft either: saving the draft afterwards would put back what the revert undid. */}
      <MemoryHistory target={{ profileId: value.id }} disabled={dirty || saving} />
    </>
  )
}

const SECTION_LABEL: Record<EditorSection, ApKey> = {
  profile: 'section.profile',
  memory: 'section.memory',
  tools: 'section.tools',
  model: 'section.model',
  preview: 'section.preview',
}

/** The profile's actions, its sections as tabs, and the save bar. */
export function ProfileEditor(props: ProfileEditorProps): ReactNode {
  const { value, dirty, changed = [], saving } = props
  const t = useT()
  const [ownSection, setOwnSection] = useState<EditorSection>('profile')
  const section = props.section ?? ownSection
  const onSection = props.onSection ?? setOwnSection
  const problems = draftProblems(t, value)
  const displayName = value.name.trim() === '' ? t('list.unnamed') : value.name
  const touched = new Set(changed.map((f) => SECTION_OF[f] ?? 'profile'))
  // A team profile is shown, not edited: its fields are the library's (memory and model stay the user's own).
  const team = value.library
  const panels = panelsOf(t, props)

  return (
    <section className="ap-panel ap-editor" aria-label={t('editor.title', { name: displayName })}>
      <EditorHead {...props} displayName={displayName} />
      {team !== undefined && (
        <div className="ap-notice" role="note" data-ap-team-profile="">
          {t('library.readOnly', { library: team.name })}
        </div>
      )}
      {props.becameDefault !== undefined && (
        <div className="ap-notice ap-new-default" role="status" data-ap-new-default="">
          <span>{t('editor.becameDefault', { name: displayName, previous: props.becameDefault.previous })}</span>{' '}
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-primary"
            disabled={saving}
            onClick={props.becameDefault.undo}
          >
            {t('action.keepDefault', { name: props.becameDefault.previous })}
          </button>
        </div>
      )}
      <Tabs
        label={t('editor.sections', { name: displayName })}
        className="ap-tabs-editor"
        selected={section}
        onSelect={onSection}
        tabs={EDITOR_SECTIONS.map((id) => ({
          id,
          label: t(SECTION_LABEL[id]),
          ...(touched.has(id) ? { mark: t('section.changed') } : {}),
          panel: panels[id],
        }))}
      />
      {dirty && problems.length > 0 && (
        <ul className="ap-error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <SaveBar {...props} blocked={problems.length > 0} />
    </section>
  )
}

/** The editor's sections' contents, by section. */
function panelsOf(t: T, props: ProfileEditorProps): Record<EditorSection, ReactNode> {
  const { value, dirty, saving, onEdit } = props
  // A team profile is shown, not edited: its fields are the library's (memory and model stay the user's own).
  const team = value.library
  return {
    profile: (
      <fieldset className="ap-fieldset" disabled={team !== undefined}>
        <ProfileFields
          value={value}
          onEdit={onEdit}
          {...(props.shrink === undefined ? {} : { shrink: props.shrink })}
        />
      </fieldset>
    ),
    memory: (
      <MemoryFields
        value={value}
        {...(props.items === undefined ? {} : { items: props.items })}
        savedVersion={props.savedVersion}
        {...(props.onItems === undefined ? {} : { onItems: props.onItems })}
        dirty={dirty}
        saving={saving}
        compressThreshold={props.compressThreshold}
        {...(props.undoCompress === undefined ? {} : { undoCompress: props.undoCompress })}
        {...(props.savedItems === undefined ? {} : { savedItems: props.savedItems })}
        onEdit={onEdit}
      />
    ),
    tools: (
      <fieldset className="ap-fieldset" disabled={team !== undefined}>
        {team?.asks !== undefined && (
          <p className="ap-hint" data-ap-library-asks="">
            {t('library.asks', { library: team.name, tools: t(`tools.profile.${team.asks.profile}`) })}
          </p>
        )}
        <ToolProfileSection
          value={value.tools}
          onChange={(tools) => {
            onEdit({ tools })
          }}
        />
      </fieldset>
    ),
    model: (
      <ModelSection
        value={value.model}
        profileId={value.id}
        {...(value.suggestedModel === undefined ? {} : { suggestion: value.suggestedModel })}
        onChange={(model) => {
          onEdit({ model })
        }}
      />
    ),
    preview: (
      <PreviewPane
        profile={
          props.items === undefined
            ? value
            : { ...value, memory: { ...value.memory, items: applyDraft(value.memory.items, props.items) } }
        }
      />
    ),
  }
}

/** The editor's title and its actions: set as default (or the badge saying it is), duplicate, delete. */
function EditorHead(props: ProfileEditorProps & { displayName: string }): ReactNode {
  const t = useT()
  const { isDefault, saving, displayName } = props
  const team = props.value.library
  return (
    <div className="ap-row ap-row-between ap-editor-head">
      <h3>{t('editor.title', { name: displayName })}</h3>
      <div className="ap-row ap-editor-tools">
        {isDefault ? (
          <span className="ap-badge ap-badge-accent">{t('badge.isDefault')}</span>
        ) : (
          <button type="button" className="ap-btn ap-btn-small" disabled={saving} onClick={props.onSetDefault}>
            {t('action.setDefault')}
          </button>
        )}
        <button
          type="button"
          className={team === undefined ? 'ap-btn ap-btn-small' : 'ap-btn ap-btn-small ap-btn-primary'}
          disabled={saving}
          onClick={props.onDuplicate}
        >
          {team === undefined ? t('action.duplicate') : t('library.duplicate')}
        </button>
        {team === undefined && (
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-danger"
            disabled={saving}
            onClick={props.onDelete}
          >
            {t('action.delete')}
          </button>
        )}
      </div>
    </div>
  )
}

/** Save and discard under every section, and the unsaved mark. */
function SaveBar({ dirty, saving, blocked, onSave, onDiscard }: ProfileEditorProps & { blocked: boolean }): ReactNode {
  const t = useT()
  return (
    <div className="ap-editor-actions">
      <button type="button" className="ap-btn ap-btn-primary" disabled={!dirty || saving || blocked} onClick={onSave}>
        {saving ? t('action.saving') : t('action.save')}
      </button>
      <button type="button" className="ap-btn" disabled={!dirty || saving} onClick={onDiscard}>
        {t('action.discard')}
      </button>
      <span className={dirty ? 'ap-dirty' : 'ap-hint'} role="status">
        {dirty ? t('editor.unsaved') : ''}
      </span>
    </div>
  )
}
