/**
 * The settings page's "About you / 关于你" section: the user layer, memory about the user that every profile whose
 * memory is on reads. Shows and edits its items as a draft (the shared memory editor), its suggestions awaiting
 * approval, its history with revert, and the share of the memory budget it may take. Its items come from their own
 * route (the state carries only their count), loaded when the section opens and again when the push channel says
 * they changed, and with the reply of any command that changed them (a save here among them); the list shows them as
 * they came, so a save is one request. The draft holds only the items the user changed, and a save
 * names only those, so facts the model saved meanwhile stay. The draft outlives the dialog (surface-draft.ts): closing
 * the settings never drops a fact added with 添加 (the page asks on Escape).
 */
import { useEffect, useMemo, type ReactNode } from 'react'
import { LIMITS, type MemoryItem } from '../../state/model.ts'
import { useApi, useApState } from '../data/api.ts'
import { useSurfaceDraft, type SurfaceRules } from '../common/surface-draft.ts'
import { noticeText } from '../common/feedback.ts'
import { useAction } from '../common/use-action.ts'
import { draftSave, isEmptyDraft, NO_EDITS, type MemoryDraft } from '../common/memory-draft.ts'
import { MemoryList } from '../common/MemoryList.tsx'
import { wholeRows } from '../common/memory-window.ts'
import { MemoryHistory } from '../common/MemoryHistory.tsx'
import { Suggestions } from '../common/Suggestions.tsx'
import { OutcomeLine } from '../common/Outcome.tsx'
import { SaveDiscard } from '../common/SaveDiscard.tsx'
import { useT } from '../copy/locales.ts'

const TARGET = { user: true } as const
const NONE: MemoryItem[] = []
/** The key of this section's draft, kept while the settings dialog is closed (see surface-draft.ts). */
export const ABOUT_DRAFT = 'about'
// The draft holds the user's edits alone (memory-draft.ts): there is nothing saved for it to follow.
const RULES: SurfaceRules<MemoryDraft> = { changed: (_base, value) => !isEmptyDraft(value), current: () => true }

/** Props of {@link AboutYou}. */
export interface AboutYouProps {
  /** Reports whether the section holds unsaved edits (the page marks its tab). */
  onDirty?(dirty: boolean): void
}

/** The section. */
export function AboutYou({ onDirty }: AboutYouProps): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  const saved = snap.user?.items ?? NONE
  // The layer whole, as the list shows it: a save's reply brings it, so the list reads nothing after a save.
  const held = useMemo(() => wholeRows(saved), [saved])
  const { value: items, dirty, edit: setItems, restart } = useSurfaceDraft(ABOUT_DRAFT, NO_EDITS, RULES)
  const { busy, outcome, run, fail } = useAction()

  useEffect(() => {
    client.loadUser().catch(fail)
  }, [client, fail])
  useEffect(() => {
    onDirty?.(dirty)
  }, [dirty, onDirty])

  const save = async (): Promise<void> => {
    if (!dirty) return
    await run(async () => {
      const reply = await client.command('user.set', draftSave(items))
      // The reply carried the layer as saved: the list shows it now, with no second request.
      restart(NO_EDITS)
      return noticeText(t, reply.notice)
    })
  }

  const budget = snap.user?.budget ?? snap.meta?.memoryBudget ?? 0
  const share = snap.user?.share ?? Math.floor(budget / 3)
  const used = saved.filter((it) => it.pending !== true).reduce((n, it) => n + it.text.length + 3, 0)
  if (snap.user === null)
    return (
      <div className="ap-placeholder" role="status">
        {t('page.loading')}
      </div>
    )
  return (
    <div className="ap-about-you">
      <p className="ap-hint">{t('about.intro')}</p>
      <div className="ap-hint" data-ap-share={share}>
        {t('about.share', { share, budget, used })}
      </div>
      <Suggestions target={TARGET} items={saved} />
      <div className="ap-field-label">
        <span>{t('about.items')}</span>
      </div>
      <MemoryList
        surface={ABOUT_DRAFT}
        layer="user"
        version={snap.user}
        held={held}
        draft={items}
        onDraft={setItems}
        limit={LIMITS.userItems}
      />
      <MemoryHistory target={TARGET} disabled={dirty || busy} />
      <OutcomeLine outcome={outcome} />
      <div className="ap-row">
        <SaveDiscard
          dirty={dirty}
          busy={busy}
          onSave={save}
          onDiscard={() => {
            restart(NO_EDITS)
          }}
        />
        <span className={dirty ? 'ap-dirty' : 'ap-hint'} role="status">
          {dirty ? t('editor.unsaved') : ''}
        </span>
      </div>
    </div>
  )
}
