/**
 * Whether a provider lacks the API key its adapter will ask for, known before any model call. The host's adapters
 * read the key only while a request streams (a missing one fails that request with `MISSING_CREDENTIAL`), so
 * model-choice.ts asks here first and falls back instead of letting a profile's model fail the turn.
 *
 * The rule is the host's own Models page's: a provider route the host's directory can configure
 * (`llm.listConfigurableProviders()`) has a settings profile (its namespace and path there); a profile naming a
 * credential reference (`apiKeyEnv`, with the adapter's default already resolved into the settings value) needs that
 * reference configured in the credentials seam (`credentials.describe`). A profile naming no reference authenticates
 * its own way (ambient discovery, a gateway that needs nothing) and owes nothing.
 *
 * It never reads a key's value (only `describe`, which never carries one), never writes, and answers "not missing"
 * whenever it cannot tell (no settings or credentials service, no directory entry, a host that throws): a check that
 * cannot tell must never turn away a model the host would have run.
 */
import type { CredentialRef } from '@deepseek-ai/dsh-credentials'
import type { SettingsNamespace } from '@deepseek-ai/dsh-settings'

/** The host surfaces this check reads; each is the real host service's own method, narrowed to what is used. */
export interface KeyHost {
  llm: {
    listConfigurableProviders(): ReadonlyArray<{
      provider: string
      settingsNs: string
      settingsPath: readonly string[]
    }>
  }
  settings?: { get(ns: SettingsNamespace): unknown }
  credentials?: { describe(ref: CredentialRef): Promise<{ configured: boolean }> }
}

/** The credential reference of `provider` that no credential source holds, or undefined (present, not needed, unknown). */
export async function missingKey(host: KeyHost, provider: string): Promise<string | undefined> {
  const { settings, credentials } = host
  if (settings === undefined || credentials === undefined) return undefined
  try {
    const entry = host.llm.listConfigurableProviders().find((e) => e.provider === provider)
    if (entry === undefined) return undefined
    let profile: unknown = settings.get(entry.settingsNs as SettingsNamespace)
    for (const step of entry.settingsPath) profile = isRecord(profile) ? profile[step] : undefined
    const ref = isRecord(profile) ? profile.apiKeyEnv : undefined
    if (typeof ref !== 'string' || ref === '') return undefined
    return (await credentials.describe(ref as CredentialRef)).configured ? undefined : ref
  } catch {
    return undefined
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
