/**
 * Floating layers anchored to a small control in the composer: a popover (menu or panel) that closes on Escape or a
 * click elsewhere, and a short-lived toast that confirms what just happened. Both render into document.body at a
 * fixed position, because the composer's tool row is one line high and may clip what overflows it. They never
 * decide anything; callers own what is shown and when it closes.
 */
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent as ReactKeyboardEvent,
  type ReactNode,
} from 'react'
import { createPortal } from 'react-dom'
import { useT } from '../copy/locales.ts'

const GAP = 6
const MARGIN = 8

/**
 * Where a layer of `width` goes: above the anchor when it sits in the lower half of the window, else below; never
 * taller than the room on that side, so its body scrolls inside it (the head stays) instead of running off the window.
 */
function placeNear(anchor: HTMLElement | null, width: number): CSSProperties {
  if (anchor === null || typeof window === 'undefined') return { left: MARGIN, bottom: MARGIN }
  const r = anchor.getBoundingClientRect()
  const left = Math.max(MARGIN, Math.min(r.left, window.innerWidth - MARGIN - width))
  return r.top > window.innerHeight / 2
    ? { left, bottom: window.innerHeight - r.top + GAP, maxHeight: r.top - GAP - MARGIN }
    : { left, top: r.bottom + GAP, maxHeight: window.innerHeight - r.bottom - GAP - MARGIN }
}

function useAnchoredPosition(anchor: HTMLElement | null, width: number): CSSProperties {
  const [style, setStyle] = useState<CSSProperties>(() => placeNear(anchor, width))
  useLayoutEffect(() => {
    const update = (): void => {
      setStyle(placeNear(anchor, width))
    }
    update()
    window.addEventListener('resize', update)
    return () => {
      window.removeEventListener('resize', update)
    }
  }, [anchor, width])
  return style
}

/** Props of {@link Popover}. */
export interface PopoverProps {
  anchor: HTMLElement | null
  onClose(): void
  /** Width used to keep the layer inside the window. */
  width: number
  className?: string
  role: 'menu' | 'dialog'
  label: string
  /**
   * The layer's title row (its heading and Close): kept out of the scrolling part, so however long the content and
   * wherever focus scrolls it, the layer always shows what it is and how to close it.
   */
  head?: ReactNode
  children?: ReactNode
  onKeyDown?(event: ReactKeyboardEvent<HTMLDivElement>): void
  /** Given the layer's element while it is up (a toast on the same anchor keeps clear of it). */
  layerRef?(element: HTMLDivElement | null): void
}

/** A layer next to `anchor`; Escape or a pointer press outside it (and outside our own dialogs) calls `onClose`. */
export function Popover({
  anchor,
  onClose,
  width,
  className,
  role,
  label,
  head,
  children,
  onKeyDown,
  layerRef,
}: PopoverProps): ReactNode {
  const ref = useRef<HTMLDivElement | null>(null)
  const setRef = useCallback(
    (element: HTMLDivElement | null) => {
      ref.current = element
      layerRef?.(element)
    },
    [layerRef],
  )
  const style = useAnchoredPosition(anchor, width)
  const close = useRef(onClose)
  close.current = onClose

  useEffect(() => {
    const outside = (event: PointerEvent): void => {
      const target = event.target as Element | null
      if (target === null || ref.current?.contains(target) || anchor?.contains(target)) return
      // A confirmation asked from inside the layer is part of it.
      if (target.closest('.ap-dialog-mask') !== null) return
      close.current()
    }
    // Bubbling, not capture: a dialog of ours on top stops Escape before it gets here and answers it itself.
    const escape = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') close.current()
    }
    document.addEventListener('pointerdown', outside, true)
    document.addEventListener('keydown', escape)
    return () => {
      document.removeEventListener('pointerdown', outside, true)
      document.removeEventListener('keydown', escape)
    }
  }, [anchor])

  const layer = (
    <div
      ref={setRef}
      className={`ap-root ap-popover${className === undefined ? '' : ` ${className}`}`}
      style={style}
      role={role}
      aria-label={label}
      onKeyDown={onKeyDown}
    >
      {head !== undefined && <div className="ap-popover-head">{head}</div>}
      <div className="ap-popover-body">{children}</div>
    </div>
  )
  return createPortal(layer, document.body)
}

/** Props of {@link PopoverHead}. */
export interface PopoverHeadProps {
  title: string
  onClose(): void
}

/** A dialog layer's head: its title and its Close button (what Popover's `head` keeps in sight). */
export function PopoverHead({ title, onClose }: PopoverHeadProps): ReactNode {
  const t = useT()
  return (
    <div className="ap-panel-head">
      <h2>{title}</h2>
      <button type="button" className="ap-btn ap-btn-small" onClick={onClose}>
        {t('action.close')}
      </button>
    </div>
  )
}

/** How long a confirmation stays up; an error stays twice as long. */
const TOAST_MS = 4000

/**
 * Where a toast of `width` × `height` goes while `layer` (a menu open on the same anchor, which the toast would
 * otherwise sit on: both open above or below the anchor) is up: above the layer when the window has room there, else
 * beside it (its right, else its left), level with its bottom edge. Never over the layer, so every item of the menu
 * can still be seen and clicked while the toast confirms the last one.
 */
function placeClear(layer: DOMRect, width: number, height: number): CSSProperties {
  const left = Math.max(MARGIN, Math.min(layer.left, window.innerWidth - MARGIN - width))
  if (layer.top - GAP - MARGIN >= height) return { left, bottom: window.innerHeight - layer.top + GAP }
  const bottom = Math.max(MARGIN, window.innerHeight - layer.bottom)
  if (layer.right + GAP + width <= window.innerWidth - MARGIN) return { left: layer.right + GAP, bottom }
  return { left: Math.max(MARGIN, layer.left - GAP - width), bottom }
}

/** Props of {@link Toast}. */
export interface ToastProps {
  anchor: HTMLElement | null
  /** A layer open on the same anchor that the toast must not cover (see {@link placeClear}). */
  clear?: HTMLElement | null
  kind: 'ok' | 'error'
  text: string
  /** Called when the toast has been up long enough. */
  onDone(): void
}

/** A one-line confirmation next to `anchor`, announced to screen readers. */
export function Toast({ anchor, clear, kind, text, onDone }: ToastProps): ReactNode {
  const near = useAnchoredPosition(anchor, 360)
  const ref = useRef<HTMLDivElement | null>(null)
  const [beside, setBeside] = useState<CSSProperties | null>(null)
  useLayoutEffect(() => {
    const place = (): void => {
      const el = ref.current
      const next =
        clear == null || el === null ? null : placeClear(clear.getBoundingClientRect(), el.offsetWidth, el.offsetHeight)
      // Only a new place re-renders: this runs after every render.
      setBeside((now) => (JSON.stringify(now) === JSON.stringify(next) ? now : next))
    }
    place()
    // The layer may be placed in the same commit, and grows or shrinks as its items change.
    const frame = requestAnimationFrame(place)
    const observer = clear == null || typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(place)
    if (clear != null) observer?.observe(clear)
    return () => {
      cancelAnimationFrame(frame)
      observer?.disconnect()
    }
  })
  const style = beside ?? near
  useEffect(() => {
    const timer = setTimeout(onDone, kind === 'error' ? 2 * TOAST_MS : TOAST_MS)
    return () => {
      clearTimeout(timer)
    }
  }, [kind, text, onDone])
  return createPortal(
    <div
      ref={ref}
      className={`ap-root ap-toast${kind === 'error' ? ' ap-toast-error' : ''}`}
      style={style}
      role={kind === 'error' ? 'alert' : 'status'}
    >
      {text}
    </div>,
    document.body,
  )
}
