/**
 * The browser half's entry: what is registered in which host slot. Each entry is wrapped in our error boundary
 * (`guard`) and registered through `ctx.slots.inject`, so it appears when its slot is declared and goes away when
 * the plugin unloads. It holds no state and never talks to /__ap (that is api.ts).
 */
import type { Context } from '@deepseek-ai/cordis'
import { guard } from './common/boundary.tsx'
import { bindLocale, en, LOCALE_NS, translate, zh, type LocaleSource } from './copy/locales.ts'
import { MemorySaveView } from './conversation/MemorySaveView.tsx'
import { MemoryUpdates } from './conversation/MemoryUpdates.tsx'
import { QuickSwitcher } from './conversation/QuickSwitcher.tsx'
import { SettingsPage } from './settings/SettingsPage.tsx'
import { installStyles } from './styles/styles.ts'
import { installTurnHead, type SlotEntryLike } from './conversation/turn-head.ts'
import { installSpeakerRows } from './conversation/speaker-rows.ts'
import { api } from './data/api.ts'
import { closeLiveOnPageHide } from './data/live.ts'
import { mentionSource, type InputTriggersLike } from './conversation/mention-source.ts'
import { MentionWarnings } from './conversation/MentionWarnings.tsx'

/** Cordis plugin name; equals the package name, as the host's module loader requires. */
export const name = 'dsh-agent-profiles'

/**
 * Host services the entries need. Nothing else: the host's client loader blanks the whole web UI when a plugin asks
 * for a service it does not have. `inputTriggers` is the composer's `/` and `@` registry (the host's own file
 * references use it too).
 */
export const inject = ['slots', 'locale', 'inputTriggers']

/** How an entry is registered in a slot: the slot's name, and the entry's id or key, order, priority and label. */
export interface SlotOptions {
  name: string
  key?: string
  id?: string
  order?: number
  priority?: number
  locale?: string
  label?: () => string
}

/**
 * The public methods of the host's slot registry this plugin calls. Written out because the package
 * declaring the registry's types (`@deepseek-ai/dsh-client-ui-slots`) is not published; the installed client packages
 * reference it without shipping it.
 */
export interface ApSlots {
  register(options: SlotOptions, component: unknown): () => void
  inject(key: string, setup: () => () => void): () => void
  entries(key: string): readonly SlotEntryLike[]
  subscribe(key: string, fn: () => void): () => void
}

/** The part of the host's client context this plugin uses. */
export type ApClientContext = Context & {
  slots: ApSlots
  inputTriggers: InputTriggersLike
  locale: LocaleSource & { register(ns: string, locale: string, dict: Record<string, string>): () => void }
}

/** Register the copy, the stylesheet and every slot entry. Throws nothing of its own: a throw here blanks the UI. */
export function apply(ctx: ApClientContext): void {
  installStyles(ctx)
  const locale = ctx.locale
  ctx.effect(
    () => bindLocale({ getLocale: () => locale.getLocale(), subscribe: (fn) => locale.subscribe(fn) }),
    'agent-profiles: language',
  )
  ctx.effect(() => locale.register(LOCALE_NS, 'zh', zh), 'agent-profiles: zh copy')
  ctx.effect(() => locale.register(LOCALE_NS, 'en', en), 'agent-profiles: en copy')

  if (typeof window !== 'undefined') ctx.effect(() => closeLiveOnPageHide(window, api), 'agent-profiles: live updates')

  // `@` in the composer offers the profiles, beside the host's file and session references.
  ctx.effect(
    () =>
      ctx.inputTriggers.registerSource(
        mentionSource(
          api,
          (key, params) => translate(locale.getLocale().active, key, params),
          () => locale.getLocale().active,
        ),
      ),
    'agent-profiles: @ profiles',
  )

  // Slot entries, one registration each: named after their slot, registered whenever the slot is declared.
  const place = (slot: string, options: Omit<SlotOptions, 'name'>, component: unknown): void => {
    ctx.slots.inject(slot, () => ctx.slots.register({ name: slot, ...options }, component))
  }
  place(
    'settings.section',
    // After the host's Agent presets (20): the two pages are neighbours in the navigation.
    { id: 'agent-profiles', order: 25, label: () => translate(locale.getLocale().active, 'nav') },
    guard(SettingsPage, { label: 'SettingsPage' }),
  )
  place(
    'conversation.input.left',
    { id: 'agent-profiles' },
    guard(QuickSwitcher, { compact: true, label: 'QuickSwitcher' }),
  )
  // Above the composer, full width: a page row the model never reads, as the queue and todo docks are.
  place(
    'conversation.input.dock',
    { id: 'agent-profiles-memory' },
    guard(MemoryUpdates, { compact: true, label: 'MemoryUpdates' }),
  )
  place(
    'conversation.input.dock',
    { id: 'agent-profiles-mentions' },
    guard(MentionWarnings, { compact: true, label: 'MentionWarnings' }),
  )
  place('tool.call.toolview', { key: 'memory_save' }, guard(MemorySaveView, { compact: true, label: 'MemorySaveView' }))
  // Shadows the host's assistant-step renderer to put a head above each turn; deliberately no turn-tail copy.
  installTurnHead(ctx.slots)
  // Shadows the host's context renderer so that the rows several speakers add read in the page's language.
  installSpeakerRows(ctx.slots)
}
