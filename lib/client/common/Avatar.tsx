/**
 * A profile's picture in its three display states: the image when one is set; the profile's emoji on
 * a round badge when none is set; the same emoji when the image fails to load. Owns the memory of which image URLs
 * failed; it never fetches or uploads anything itself.
 */
import { useReducer, type CSSProperties, type ReactNode } from 'react'

/** Shown when a profile has neither a usable image nor an emoji. */
export const DEFAULT_EMOJI = '🤖'

// Per URL, not a flag: a new picture must not stay hidden behind the failure of the old one.
const brokenImages = new Set<string>()

/** Props of {@link Avatar}. */
export interface AvatarProps {
  /** Image URL (`/__ap/avatar/…` or a data URL), or '' when the profile has none. */
  src: string
  emoji: string
  /** Edge length in pixels. */
  size?: number
  /** Accessible name, usually the profile's name. */
  label?: string
  className?: string
}

/** Which of the three states an avatar shows. */
type AvatarState = 'image' | 'emoji' | 'broken'

/** The state `src` is displayed in right now. */
function avatarState(src: string): AvatarState {
  if (src === '') return 'emoji'
  return brokenImages.has(src) ? 'broken' : 'image'
}

/** Round avatar: image, or emoji when there is no image or it failed to load. */
export function Avatar({ src, emoji, size = 32, label, className }: AvatarProps): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  const state = avatarState(src)
  const style: CSSProperties = { width: size, height: size, fontSize: Math.round(size * 0.55) }
  const classes = `ap-avatar${className === undefined ? '' : ` ${className}`}`
  if (state === 'image') {
    return (
      <span className={classes} style={style} data-avatar-state="image">
        <img
          className="ap-avatar-img"
          src={src}
          alt={label ?? ''}
          width={size}
          height={size}
          draggable={false}
          onError={() => {
            brokenImages.add(src)
            rerender()
          }}
        />
      </span>
    )
  }
  return (
    <span
      className={`${classes} ap-avatar-emoji`}
      style={style}
      data-avatar-state={state}
      role="img"
      aria-label={label ?? emoji}
    >
      {emoji.trim() === '' ? DEFAULT_EMOJI : emoji}
    </span>
  )
}
