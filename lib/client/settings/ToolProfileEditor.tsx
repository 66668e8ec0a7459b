/**
 * The tool-profile part of the profile editor: pick full / read-only / worker / custom, turn single tools on or off
 * (only when the profile is not full), add a tool by name, see the tools a conversation will get, the names this host
 * does not offer, and the tool-schema bytes a request carries under each profile, as the host measured them. Edits go
 * into the draft through `onChange`; it never saves and never talks to the host itself.
 */
import { useId, useState, useSyncExternalStore, type ReactNode } from 'react'
import { LIMITS, TOOL_NAME, TOOL_PROFILES, type ToolProfileName, type ToolSettings } from '../../state/model.ts'
import { isFull, profileOf, requestBytes, selectTools, withTool, type ToolSize } from '../../shared/tool-profiles.ts'
import { useApi } from '../data/api.ts'
import { useT, type ApKey, type T } from '../copy/locales.ts'
import type { ToolProfileStatus } from '../../shared/diagnostics.ts'

/** Props of {@link ToolProfileEditor}. */
export interface ToolProfileEditorProps {
  value: ToolSettings | undefined
  onChange(next: ToolSettings): void
  /** What the host measured (`meta.toolProfiles`); absent before it has seen its tools or without the part. */
  status: Partial<ToolProfileStatus> | undefined
}

const FULL: ToolSettings = { profile: 'full', add: [], remove: [] }

/** Sizes a reader takes in at a glance: bytes below 1 KB, else KB with one decimal. */
function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`
}

/** Why a typed tool name cannot be added, or undefined when it can. */
function nameProblem(t: T, name: string, settings: ToolSettings): string | undefined {
  if (name.length > LIMITS.toolName) return t('tools.nameTooLong', { limit: LIMITS.toolName })
  if (!TOOL_NAME.test(name)) return t('tools.nameInvalid')
  if (settings.add.length >= LIMITS.toolOverrides) return t('tools.tooMany', { limit: LIMITS.toolOverrides })
  return undefined
}

/** The form part, from the settings and the host's measurements. */
export function ToolProfileEditor({ value, onChange, status }: ToolProfileEditorProps): ReactNode {
  const t = useT()
  const ids = useId()
  // Held here, not by the add box: a name typed, then the profile set to full and back, is still there.
  const [typed, setTyped] = useState('')
  const settings = value ?? FULL
  const profile = profileOf(value)
  const catalogue = status?.catalogue ?? []
  const kept = status?.kept ?? []
  const offered = [...new Set(catalogue.flatMap((c) => c.tools.map((s) => s.name)))].sort()
  const measured = offered.length > 0
  const selection = selectTools(value, offered, kept)
  const unknown = measured ? selection.unknown : []

  return (
    <fieldset className="ap-fieldset ap-tools">
      <legend>{t('tools.title')}</legend>
      <div className="ap-field">
        <label className="ap-field-label" htmlFor={`${ids}profile`}>
          <span>{t('tools.profile')}</span>
        </label>
        <select
          id={`${ids}profile`}
          className="ap-select"
          value={profile}
          onChange={(e) => {
            onChange({ ...settings, profile: e.currentTarget.value as ToolProfileName })
          }}
        >
          {TOOL_PROFILES.map((p) => (
            <option key={p} value={p}>
              {t(`tools.profile.${p}` as ApKey)}
            </option>
          ))}
        </select>
        <span className="ap-hint">{t(`tools.hint.${profile}` as ApKey)}</span>
      </div>

      {!measured && <p className="ap-hint">{t('tools.notMeasured')}</p>}

      {measured && (
        <div className="ap-field">
          <span className="ap-field-label">{t('tools.effective', { count: selection.allowed.length })}</span>
          <span className="ap-tools-effective">
            {selection.allowed.length === 0 ? t('tools.none') : selection.allowed.join('  ')}
          </span>
        </div>
      )}

      {!isFull(value) && measured && (
        <ToolGrid offered={offered} kept={kept} allowed={selection.allowed} settings={settings} onChange={onChange} />
      )}
      {!isFull(value) && <AddByName settings={settings} onChange={onChange} typed={typed} onType={setTyped} />}
      {!isFull(value) && unknown.length > 0 && (
        <UnknownNames unknown={unknown} settings={settings} onChange={onChange} />
      )}
      {measured && <BytesTable value={value} catalogue={catalogue} kept={kept} />}

      <span className="ap-hint">{t('tools.limitNote')}</span>
    </fieldset>
  )
}

/** What the parts of the form below the profile pick edit. */
interface PartProps {
  settings: ToolSettings
  onChange(next: ToolSettings): void
}

/** One checkbox per tool the host offers; a tool the host always keeps is ticked and locked. */
function ToolGrid({
  offered,
  kept,
  allowed,
  settings,
  onChange,
}: PartProps & { offered: string[]; kept: readonly string[]; allowed: readonly string[] }): ReactNode {
  const t = useT()
  return (
    <div className="ap-tools-grid" role="group" aria-label={t('tools.pick')}>
      {offered.map((name) => {
        const locked = kept.includes(name)
        return (
          <label key={name} className="ap-check ap-tools-item" title={locked ? t('tools.kept') : undefined}>
            <input
              type="checkbox"
              checked={allowed.includes(name)}
              disabled={locked}
              onChange={(e) => {
                onChange(withTool(settings, name, e.currentTarget.checked))
              }}
            />
            <span>{name}</span>
          </label>
        )
      })}
    </div>
  )
}

/** A tool added by its name, refused in words while the name cannot be one. */
function AddByName({
  settings,
  onChange,
  typed,
  onType: setTyped,
}: PartProps & { typed: string; onType(typed: string): void }): ReactNode {
  const t = useT()
  const ids = useId()
  const problem = typed.trim() === '' ? undefined : nameProblem(t, typed.trim(), settings)
  const addTyped = () => {
    const name = typed.trim()
    if (name === '' || problem !== undefined) return
    // Kept in `add` even where the profile already allows it, so a name the host does not offer is reported.
    onChange({
      ...settings,
      add: [...settings.add.filter((n) => n !== name), name],
      remove: settings.remove.filter((n) => n !== name),
    })
    setTyped('')
  }
  return (
    <div className="ap-field">
      <label className="ap-field-label" htmlFor={`${ids}add`}>
        <span>{t('tools.addByName')}</span>
      </label>
      <div className="ap-row">
        <input
          id={`${ids}add`}
          className="ap-input ap-grow"
          value={typed}
          maxLength={LIMITS.toolName + 1}
          onChange={(e) => {
            setTyped(e.currentTarget.value)
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault()
              addTyped()
            }
          }}
        />
        <button
          type="button"
          className="ap-btn ap-btn-small"
          disabled={typed.trim() === '' || problem !== undefined}
          onClick={addTyped}
        >
          {t('tools.add')}
        </button>
      </div>
      {problem !== undefined && (
        <span className="ap-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  )
}

/** The names the settings hold that this host does not offer, each with its removal. */
function UnknownNames({ unknown, settings, onChange }: PartProps & { unknown: readonly string[] }): ReactNode {
  const t = useT()
  const dropName = (name: string) => {
    onChange({
      ...settings,
      add: settings.add.filter((n) => n !== name),
      remove: settings.remove.filter((n) => n !== name),
    })
  }
  return (
    <div className="ap-error" role="alert">
      <span>{t('tools.unknown', { count: unknown.length })}</span>
      <ul className="ap-tools-unknown">
        {unknown.map((name) => (
          <li key={name}>
            <code>{name}</code>{' '}
            <button
              type="button"
              className="ap-btn ap-btn-small"
              onClick={() => {
                dropName(name)
              }}
            >
              {t('tools.dropName', { name })}
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** The tools and tool-schema bytes a request carries under each profile, as the host measured them. */
function BytesTable({
  value,
  catalogue,
  kept,
}: {
  value: ToolSettings | undefined
  catalogue: ToolProfileStatus['catalogue']
  kept: readonly string[]
}): ReactNode {
  const t = useT()
  const profile = profileOf(value)
  // The default preset comes first; every preset's names count as offered, so none of them is called unknown.
  const reference: ToolSize[] = catalogue[0]?.tools ?? []
  return (
    <div className="ap-field">
      <span className="ap-field-label">{t('tools.bytes')}</span>
      <table className="ap-tools-bytes">
        <tbody>
          {TOOL_PROFILES.map((p) => {
            const under = p === profile ? value : { profile: p, add: [], remove: [] }
            const names = selectTools(
              under,
              reference.map((s) => s.name),
              kept,
            ).allowed
            return (
              <tr key={p} aria-current={p === profile ? 'true' : undefined}>
                <th scope="row">{t(`tools.profile.${p}` as ApKey)}</th>
                <td>{t('tools.count', { count: names.length })}</td>
                <td title={String(requestBytes(reference, names))}>{size(requestBytes(reference, names))}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <span className="ap-hint">{t('tools.bytesSource', { source: catalogue[0]!.source })}</span>
    </div>
  )
}

/** The editor part wired to the shared snapshot's `meta.toolProfiles`, without starting a load of its own. */
export function ToolProfileSection(props: Omit<ToolProfileEditorProps, 'status'>): ReactNode {
  const client = useApi()
  const snap = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot)
  return <ToolProfileEditor {...props} status={snap.meta?.toolProfiles} />
}
