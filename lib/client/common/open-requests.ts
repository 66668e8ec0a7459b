/**
 * Links from one part of the page to the place where something is edited: a profile's memory or the user layer on
 * the settings page, a conversation's ⚙ panel. Holds the one pending request and tells whoever shows that place (it may mount only
 * after the request, as the settings page does once its dialog opens); it never renders.
 */
import { useEffect, useRef } from 'react'

/** Where a link asks to go. */
export type OpenRequest =
  { to: 'profile-memory'; profileId: string } | { to: 'about-you' } | { to: 'panel'; sessionId: string }

/** How long a request waits for its place to show (the settings dialog opening); after that it is stale. */
const WAIT_MS = 10_000

let pending: OpenRequest | undefined
let pendingAt = 0
const listeners = new Set<() => void>()

/** Ask for `request`; a profile's memory and the user layer also open the host's settings dialog on this plugin's page, titled `page`. */
export function requestOpen(request: OpenRequest, page?: string): void {
  pending = request
  pendingAt = Date.now()
  for (const fn of [...listeners]) fn()
  if (request.to !== 'panel' && pending !== undefined && page !== undefined) openHostSettings(page)
}

/**
 * React hook: call `onRequest` with each request for `to` that `accepts` (at mount for one made before), and take
 * it, so that one request is acted on once.
 */
export function useOpenRequest<T extends OpenRequest['to']>(
  to: T,
  accepts: (r: Extract<OpenRequest, { to: T }>) => boolean,
  onRequest: (r: Extract<OpenRequest, { to: T }>) => void,
): void {
  const latest = useRef({ accepts, onRequest })
  latest.current = { accepts, onRequest }
  useEffect(() => {
    const check = (): void => {
      const r = pending
      if (r !== undefined && Date.now() - pendingAt > WAIT_MS) pending = undefined
      if (
        r === undefined ||
        pending === undefined ||
        r.to !== to ||
        !latest.current.accepts(r as Extract<OpenRequest, { to: T }>)
      )
        return
      pending = undefined
      latest.current.onRequest(r as Extract<OpenRequest, { to: T }>)
    }
    listeners.add(check)
    check()
    return () => void listeners.delete(check)
  }, [to])
}

// The host gives a settings section no way to open its dialog, so the link does what a user does: the sidebar's
// settings trigger (found by its slot, as the rail shows it without text), then the page's entry in the dialog.
function openHostSettings(page: string): void {
  document.querySelector('[data-slot="settings.trigger"]')?.closest('button')?.click()
  let tries = 0
  const enter = (): void => {
    // Already shown (the page took the request): nothing left to open.
    if (pending === undefined) return
    const entry = [...document.querySelectorAll<HTMLElement>('[role="dialog"] button')].find(
      (b) => b.textContent?.trim() === page,
    )
    if (entry !== undefined) entry.click()
    else if (++tries < 40) setTimeout(enter, 50)
  }
  setTimeout(enter, 0)
}
