/**
 * "3 memories used" in a turn head: the memory items that turn's requests carried, as the host recorded them with
 * the turn (their texts then, so the list reads right after an item is edited or deleted) — first the items recall
 * brought back for what the user wrote in that turn (what this turn alone had), marked as recalled with the day they
 * were saved, then the core the system prompt carries — each with a link to where it is edited: a profile's item to that profile's memory on
 * the settings page, a user-layer item to the page's About you section, a conversation's item to this conversation's
 * ⚙ panel. Fetched when opened; it never writes anything.
 */
import { useRef, useState, type ReactNode } from 'react'
import type { UsedMemory } from '../../state/model.ts'
import { useApi } from '../data/api.ts'
import { requestOpen } from '../common/open-requests.ts'
import { describeError, formatTime } from '../common/feedback.ts'
import { Popover, PopoverHead } from '../common/popover.tsx'
import { activeLocale, useT } from '../copy/locales.ts'

/** Props of {@link TurnMemories}. */
export interface TurnMemoriesProps {
  sessionId: string
  turn: number
  /** How many items the turn carried, from the ledger. */
  count: number
  /** The profile that answered the turn: its items' link opens its memory. */
  profileId: string
}

const LIST_WIDTH = 360

/** The count, and the list it opens. */
export function TurnMemories({ sessionId, turn, count, profileId }: TurnMemoriesProps): ReactNode {
  const t = useT()
  const client = useApi()
  const anchor = useRef<HTMLButtonElement | null>(null)
  const [open, setOpen] = useState(false)
  const [items, setItems] = useState<UsedMemory[] | null | undefined>(undefined)
  const [error, setError] = useState<string | null>(null)

  const show = (): void => {
    setOpen((was) => !was)
    if (items !== undefined) return
    client.turnMemories(sessionId, turn).then(setItems, (e: unknown) => {
      setError(describeError(t, e))
    })
  }
  const go = (item: UsedMemory): void => {
    setOpen(false)
    if (item.layer === 'conversation') requestOpen({ to: 'panel', sessionId })
    else if (item.layer === 'user') requestOpen({ to: 'about-you' }, t('nav'))
    else requestOpen({ to: 'profile-memory', profileId }, t('nav'))
  }

  return (
    <>
      <button ref={anchor} type="button" className="ap-turn-memories" aria-expanded={open} onClick={show}>
        {t('turn.memoriesUsed', { count })}
      </button>
      {open && (
        <Popover
          anchor={anchor.current}
          onClose={() => {
            setOpen(false)
          }}
          width={LIST_WIDTH}
          className="ap-turn-memories-pop"
          role="dialog"
          label={t('turn.memoriesTitle')}
          head={
            <PopoverHead
              title={t('turn.memoriesTitle')}
              onClose={() => {
                setOpen(false)
              }}
            />
          }
        >
          <UsedList items={items} error={error} onGo={go} />
        </Popover>
      )}
    </>
  )
}

/** The turn's items once fetched: the recalled ones first, then the core, each with its link; or why there are none. */
function UsedList({
  items,
  error,
  onGo,
}: {
  items: UsedMemory[] | null | undefined
  error: string | null
  onGo(item: UsedMemory): void
}): ReactNode {
  const t = useT()
  if (error !== null)
    return (
      <div className="ap-error" role="alert">
        {error}
      </div>
    )
  if (items === undefined)
    return (
      <div className="ap-placeholder" role="status">
        {t('page.loading')}
      </div>
    )
  if (items === null || items.length === 0) return <div className="ap-hint">{t('turn.memoriesNone')}</div>
  return (
    <ul className="ap-turn-memory-list">
      {[...items.filter((it) => it.recalled === true), ...items.filter((it) => it.recalled !== true)].map((item) => (
        <li
          key={`${item.layer}:${item.id}`}
          className="ap-turn-memory"
          data-layer={item.layer}
          data-recalled={item.recalled === true ? '' : undefined}
        >
          <span className="ap-turn-memory-text">
            {item.recalled === true && (
              <span className="ap-badge ap-badge-accent" title={t('turn.recalledHint')}>
                {t('turn.recalled')}
              </span>
            )}
            {item.recalled === true && ' '}
            {item.text}
            {item.recalled === true && item.at !== undefined && (
              <>
                {' '}
                <time className="ap-hint" dateTime={new Date(item.at).toISOString()}>
                  {t('turn.savedAt', { time: formatTime(activeLocale(), item.at) })}
                </time>
              </>
            )}
          </span>
          <button
            type="button"
            className="ap-btn ap-btn-small"
            onClick={() => {
              onGo(item)
            }}
          >
            {t(item.layer === 'conversation' ? 'turn.memoryInPanel' : 'turn.memoryInSettings')}
          </button>
        </li>
      ))}
    </ul>
  )
}
