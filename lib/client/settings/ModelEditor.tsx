/**
 * The model part of the profile editor: the model the profile's conversations answer on, picked from the host's own
 * providers and models (`GET /__ap/models`), with a reasoning effort among the ones that model offers and an optional
 * temperature; or none, the conversation's model as before. A saved model the host no longer lists stays selectable
 * and is marked. Edits go into the draft through `onChange`; the host checks the model when the profile is saved.
 * It never saves the draft by itself; a model an imported file suggested is shown apart, with Accept and Dismiss,
 * which answer the host at once (the suggestion is the saved profile's, not the draft's). The catalog's read is
 * use-model-catalog.ts's.
 */
import { useId, type ReactNode } from 'react'
import { LIMITS, type ModelChoice } from '../../state/model.ts'
import type { ModelCatalog } from '../../shared/models.ts'
import { useApi } from '../data/api.ts'
import { useModelCatalog } from './use-model-catalog.ts'
import { useAction } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'

/** Props of {@link ModelSection}. */
export interface ModelSectionProps {
  value: ModelChoice | undefined
  onChange(next: ModelChoice | undefined): void
  /** The profile edited, for the answer to its suggestion. */
  profileId?: string
  /** The model an imported file suggested, waiting for the user's answer. */
  suggestion?: ModelChoice
}

/** A model as the host lists it, with the efforts it offers. */
type ModelInfo = ModelCatalog['providers'][number]['models'][number]

/** The option value of a provider's model (a NUL cannot be in either id: both are single-line text). */
const keyOf = (provider: string, model: string): string => `${provider}\u0000${model}`

/** The editor's model section. */
export function ModelSection({ value, onChange, profileId, suggestion }: ModelSectionProps): ReactNode {
  const t = useT()
  const ids = useId()
  const { load, retry } = useModelCatalog()

  const providers = load.kind === 'ready' ? load.catalog.providers : []
  const listed =
    value === undefined
      ? undefined
      : providers.find((p) => p.id === value.provider)?.models.find((m) => m.id === value.model)
  const missing = value !== undefined && load.kind === 'ready' && listed === undefined
  const pick = (key: string) => {
    if (key === '') return onChange(undefined)
    const [provider, model] = key.split('\u0000') as [string, string]
    // Another model's efforts differ: the effort goes back to the model's default; the temperature stays.
    onChange({ provider, model, ...(value?.temperature === undefined ? {} : { temperature: value.temperature }) })
  }

  return (
    <div className="ap-model" data-ap-model-editor="">
      {suggestion !== undefined && profileId !== undefined && (
        <Suggestion profileId={profileId} suggestion={suggestion} />
      )}
      <label className="ap-field" htmlFor={`${ids}-model`}>
        <span className="ap-field-label">{t('model.label')}</span>
        <select
          id={`${ids}-model`}
          className="ap-input"
          value={value === undefined ? '' : keyOf(value.provider, value.model)}
          onChange={(e) => {
            pick(e.currentTarget.value)
          }}
        >
          <option value="">{t('model.conversation')}</option>
          {missing && (
            <option value={keyOf(value.provider, value.model)}>
              {t('model.missing', { model: value.model, provider: value.provider })}
            </option>
          )}
          {providers.map((p) => (
            <optgroup key={p.id} label={p.name}>
              {p.models.map((m) => (
                <option key={m.id} value={keyOf(p.id, m.id)}>
                  {m.name === m.id ? m.id : `${m.name} (${m.id})`}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <span className="ap-hint">{t('model.hint')}</span>
      </label>
      <CatalogState load={load} retry={retry} />
      {missing && (
        <p className="ap-error" role="alert">
          {t('model.missingHint')}
        </p>
      )}
      {value !== undefined && <ModelParams value={value} listed={listed} onChange={onChange} />}
    </div>
  )
}

/** How the read of the catalog went: under way, failed (with a retry), or the providers it could not list. */
function CatalogState({ load, retry }: ReturnType<typeof useModelCatalog>): ReactNode {
  const t = useT()
  return (
    <>
      {load.kind === 'loading' && (
        <p className="ap-hint" role="status">
          {t('model.loading')}
        </p>
      )}
      {load.kind === 'failed' && (
        <p className="ap-error" role="alert">
          {t('model.loadFailed', { message: load.message })}{' '}
          <button type="button" className="ap-btn ap-btn-small" onClick={retry}>
            {t('model.retry')}
          </button>
        </p>
      )}
      {load.kind === 'ready' &&
        load.catalog.failures.map((failure) => (
          <p className="ap-hint" role="note" key={'missing' in failure ? '' : failure.provider}>
            {'missing' in failure
              ? t('model.noService')
              : t('detail.quoted', {
                  text: t('model.partial', { provider: failure.provider }),
                  detail: failure.detail,
                })}
          </p>
        ))}
    </>
  )
}

/** Props of {@link ModelParams}. */
interface ModelParamsProps {
  value: ModelChoice
  /** The chosen model as the host lists it; undefined when it lists no such model (or not yet). */
  listed: ModelInfo | undefined
  onChange(next: ModelChoice): void
}

/** The chosen model's reasoning effort, among the ones it offers, and its optional temperature. */
function ModelParams({ value, listed, onChange }: ModelParamsProps): ReactNode {
  const t = useT()
  const ids = useId()
  const efforts = listed?.efforts ?? []
  return (
    <>
      <label className="ap-field" htmlFor={`${ids}-effort`}>
        <span className="ap-field-label">{t('model.effort')}</span>
        <select
          id={`${ids}-effort`}
          className="ap-input"
          value={value.reasoningEffort ?? ''}
          disabled={efforts.length === 0 && value.reasoningEffort === undefined}
          onChange={(e) => {
            const { reasoningEffort: _old, ...rest } = value
            onChange(e.currentTarget.value === '' ? rest : { ...rest, reasoningEffort: e.currentTarget.value })
          }}
        >
          <option value="">
            {listed?.defaultEffort === undefined
              ? t('model.effortDefault')
              : t('model.effortDefaultIs', {
                  effort: efforts.find((e) => e.id === listed.defaultEffort)?.name ?? listed.defaultEffort,
                })}
          </option>
          {value.reasoningEffort !== undefined && !efforts.some((e) => e.id === value.reasoningEffort) && (
            <option value={value.reasoningEffort}>{value.reasoningEffort}</option>
          )}
          {efforts.map((e) => (
            <option key={e.id} value={e.id}>
              {e.name}
            </option>
          ))}
        </select>
      </label>
      <label className="ap-field" htmlFor={`${ids}-temperature`}>
        <span className="ap-field-label">{t('model.temperature')}</span>
        <input
          id={`${ids}-temperature`}
          className="ap-input"
          type="number"
          min={0}
          max={LIMITS.temperature}
          step={0.1}
          placeholder={t('model.temperatureDefault')}
          value={value.temperature ?? ''}
          onChange={(e) => {
            const { temperature: _old, ...rest } = value
            const typed = e.currentTarget.value
            const n = Number(typed)
            onChange(typed === '' || !Number.isFinite(n) ? rest : { ...rest, temperature: n })
          }}
        />
        <span className="ap-hint">{t('model.temperatureHint', { max: LIMITS.temperature })}</span>
      </label>
    </>
  )
}

/** A model an imported file suggested, with Accept (it becomes the profile's model) and Dismiss (it is gone). */
function Suggestion({ profileId, suggestion }: { profileId: string; suggestion: ModelChoice }): ReactNode {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run } = useAction()
  // Says nothing on success: the suggestion goes, and an accepted model shows in the picker.
  const answer = (suggestionAnswer: 'accept' | 'dismiss'): Promise<void> =>
    run(async () => {
      await client.command('profile.update', { id: profileId, patch: {}, suggestion: suggestionAnswer })
    })
  return (
    <div className="ap-notice" role="note" data-ap-model-suggestion="">
      <span>
        {t('model.suggested', {
          value: `${suggestion.provider}/${suggestion.model}`,
          effort: suggestion.reasoningEffort ?? '—',
          temperature: suggestion.temperature ?? '—',
        })}
      </span>{' '}
      <button
        type="button"
        className="ap-btn ap-btn-small"
        disabled={busy}
        onClick={() => {
          void answer('accept')
        }}
      >
        {t('model.accept')}
      </button>{' '}
      <button
        type="button"
        className="ap-btn ap-btn-small"
        disabled={busy}
        onClick={() => {
          void answer('dismiss')
        }}
      >
        {t('model.dismiss')}
      </button>
      {outcome !== null && (
        <p className="ap-error" role="alert">
          {outcome.text}
        </p>
      )}
    </div>
  )
}
