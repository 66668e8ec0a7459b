/**
 * Validation of a profile's tool settings (state/model.ts `ToolSettings`) by their schema (state/schema-state.ts
 * `ToolSettingsSchema`): one of the four tool profiles, and override lists of distinct tool names within
 * LIMITS.toolOverrides names of LIMITS.toolName characters. It never decides which tools a profile gets
 * (lib/shared/tool-profiles.ts does).
 */
import type { ToolSettings } from '../state/model.ts'
import { ToolSettingsSchema } from '../state/schema-state.ts'
import { parse } from './core.ts'

/** A profile's tool settings (lib/state/model.ts `ToolSettings`); absent lists are empty. */
export function toolSettings(v: unknown, field: string): ToolSettings {
  return parse(ToolSettingsSchema, v, field)
}
