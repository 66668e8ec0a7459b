/**
 * ARIA tabs for the settings page: a tablist whose tabs move with the arrow keys, Home and End (roving tabindex, so
 * Tab enters the list once and then goes on into the panel), and the panels below it. A panel is mounted the first
 * time it is shown and then only hidden, as the host's own settings tabs do, so what a user typed or chose inside a
 * panel is still there after a visit elsewhere. Which tab is selected belongs to the caller; it never decides.
 */
import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react'

/** One tab and the panel it shows. */
interface TabSpec<Id extends string> {
  id: Id
  label: ReactNode
  /** Shown as a dot after the label and read as part of the tab's name (the unsaved-draft warning). */
  mark?: string
  panel: ReactNode
}

/** Props of {@link Tabs}. */
export interface TabsProps<Id extends string> {
  /** What the tablist is called for screen readers ("Sections of the page"). */
  label: string
  tabs: readonly TabSpec<Id>[]
  selected: Id
  onSelect(id: Id): void
  /** Class of the tablist, for the page's bigger tabs versus the editor's. */
  className?: string
}

/** Index of the tab a key moves to from `index` among `count`, or undefined for a key tabs leave alone. */
export function tabStep(key: string, index: number, count: number): number | undefined {
  switch (key) {
    case 'ArrowRight':
      return (index + 1) % count
    case 'ArrowLeft':
      return (index - 1 + count) % count
    case 'Home':
      return 0
    case 'End':
      return count - 1
    default:
      return undefined
  }
}

/** The tablist and the panels visited so far (the selected one shown). */
export function Tabs<Id extends string>({ label, tabs, selected, onSelect, className }: TabsProps<Id>): ReactNode {
  const ids = useId()
  const refs = useRef<(HTMLButtonElement | null)[]>([])
  const visited = useRef(new Set<Id>())
  visited.current.add(selected)

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    const next = tabStep(event.key, index, tabs.length)
    if (next === undefined) return
    event.preventDefault()
    onSelect(tabs[next]!.id)
    refs.current[next]?.focus()
  }

  return (
    <>
      <div className={`ap-tabs${className === undefined ? '' : ` ${className}`}`} role="tablist" aria-label={label}>
        {tabs.map((tab, index) => {
          const on = tab.id === selected
          return (
            <button
              key={tab.id}
              ref={(el) => {
                refs.current[index] = el
              }}
              id={`${ids}tab-${tab.id}`}
              type="button"
              role="tab"
              className="ap-tab"
              aria-selected={on}
              aria-controls={`${ids}panel-${tab.id}`}
              tabIndex={on ? 0 : -1}
              data-tab={tab.id}
              onClick={() => {
                onSelect(tab.id)
              }}
              onKeyDown={(e) => {
                onKeyDown(e, index)
              }}
            >
              {tab.label}
              {tab.mark !== undefined && (
                <>
                  <span className="ap-tab-mark" aria-hidden="true">
                    {' '}
                    •
                  </span>
                  <span className="ap-sr-only">{` (${tab.mark})`}</span>
                </>
              )}
            </button>
          )
        })}
      </div>
      {tabs
        .filter((tab) => visited.current.has(tab.id))
        .map((tab) => (
          <div
            key={tab.id}
            id={`${ids}panel-${tab.id}`}
            className="ap-tabpanel"
            role="tabpanel"
            aria-labelledby={`${ids}tab-${tab.id}`}
            data-panel={tab.id}
            // Focusable so a keyboard user lands in panels that start with text (the preview, diagnostics).
            tabIndex={0}
            hidden={tab.id !== selected}
          >
            {tab.panel}
          </div>
        ))}
    </>
  )
}
