/**
 * The avatar row of the editor: the current picture (44 px, the turn head's size), a picker that shrinks the
 * chosen file in the browser before it enters the draft, the resulting size, refusals in words, and removal.
 * It never saves: the new data URL becomes part of the draft.
 */
import { useId, useRef, useState, type ReactNode } from 'react'
import { Avatar } from '../common/Avatar.tsx'
import { formatBytes } from '../common/feedback.ts'
import { ACCEPTED_TYPES, ImageError, shrinkImage, type ImageProblem, type ShrunkImage } from './image.ts'
import { useT, type T } from '../copy/locales.ts'

/** Props of {@link AvatarPicker}. */
export interface AvatarPickerProps {
  /** Current avatar: a URL, a fresh data URL, or ''. */
  value: string
  emoji: string
  name: string
  onChange(next: string): void
  /** The shrinking step; the canvas one unless a test replaces it. */
  shrink?: (file: File) => Promise<ShrunkImage>
}

type Status =
  { kind: 'idle' } | { kind: 'working' } | { kind: 'done'; image: ShrunkImage } | { kind: 'refused'; message: string }

function refusal(t: T, problem: ImageProblem): string {
  switch (problem.kind) {
    case 'svg':
      return t('avatar.svg')
    case 'type':
      return t('avatar.type', { type: problem.type })
    case 'tooLarge':
      return t('avatar.tooLarge', { size: formatBytes(problem.size), limit: formatBytes(problem.limit) })
    case 'encodedTooLarge':
      return t('avatar.encodedTooLarge', { length: problem.length, limit: problem.limit })
    case 'decode':
      return t('avatar.decode')
    case 'redraw':
      return t('avatar.redraw')
  }
}

/** Picture, "choose", "remove", and what happened to the last file. */
export function AvatarPicker({ value, emoji, name, onChange, shrink = shrinkImage }: AvatarPickerProps): ReactNode {
  const t = useT()
  const inputId = useId()
  const input = useRef<HTMLInputElement | null>(null)
  const [status, setStatus] = useState<Status>({ kind: 'idle' })

  const pick = async (file: File): Promise<void> => {
    setStatus({ kind: 'working' })
    try {
      const image = await shrink(file)
      onChange(image.dataUrl)
      setStatus({ kind: 'done', image })
    } catch (error) {
      setStatus({
        kind: 'refused',
        message: error instanceof ImageError ? refusal(t, error.problem) : t('avatar.redraw'),
      })
    }
  }

  return (
    <div className="ap-field">
      <label className="ap-field-label" htmlFor={inputId}>
        {t('field.avatar')}
      </label>
      <div className="ap-avatar-picker">
        <Avatar src={value} emoji={emoji} size={44} label={name} />
        <div className="ap-row">
          <input
            ref={input}
            id={inputId}
            className="ap-file-input"
            type="file"
            accept={ACCEPTED_TYPES.join(',')}
            hidden
            onChange={(e) => {
              const file = e.currentTarget.files?.[0]
              // Reset so choosing the same file again still fires a change.
              e.currentTarget.value = ''
              if (file !== undefined) void pick(file)
            }}
          />
          <button
            type="button"
            className="ap-btn"
            disabled={status.kind === 'working'}
            onClick={() => {
              input.current?.click()
            }}
          >
            {value === '' ? t('avatar.pick') : t('avatar.replace')}
          </button>
          {value !== '' && (
            <button
              type="button"
              className="ap-btn ap-btn-danger"
              onClick={() => {
                onChange('')
                setStatus({ kind: 'idle' })
              }}
            >
              {t('avatar.remove')}
            </button>
          )}
        </div>
      </div>
      <StatusLine status={status} />
    </div>
  )
}

/** What happened to the last file: shrinking, its size once shrunk, why it was refused, or the hint before any. */
function StatusLine({ status }: { status: Status }): ReactNode {
  const t = useT()
  return (
    <>
      {status.kind === 'working' && (
        <div className="ap-hint" role="status">
          {t('avatar.working')}
        </div>
      )}
      {status.kind === 'done' && (
        <div className="ap-hint" role="status">
          {t('avatar.result', {
            width: status.image.width,
            height: status.image.height,
            size: formatBytes(status.image.bytes),
          })}
        </div>
      )}
      {status.kind === 'refused' && (
        <div className="ap-error" role="alert">
          {status.message}
        </div>
      )}
      {status.kind === 'idle' && <div className="ap-hint">{t('avatar.hint')}</div>}
    </>
  )
}
