/**
 * What the model will see for the current draft, rendered by the host (`/__ap/preview`) so the preview is the
 * real prompt text, with its size in characters and approximate tokens. Re-renders a moment after the user stops
 * typing; it never saves.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { Profile } from '../../state/model.ts'
import { useApi } from '../data/api.ts'
import { describeError } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import type { PreviewReply } from '../../shared/wire-replies.ts'

/** Props of {@link PreviewPane}. */
export interface PreviewPaneProps {
  profile: Profile
  /** Wait after the last edit before asking the host, in milliseconds. */
  delay?: number
}

type PreviewStatus = { kind: 'loading' } | { kind: 'ready'; reply: PreviewReply } | { kind: 'failed'; message: string }

/** The draft's prompt text in a scrollable box, with its size. */
export function PreviewPane({ profile, delay = 300 }: PreviewPaneProps): ReactNode {
  const t = useT()
  const client = useApi()
  const [status, setStatus] = useState<PreviewStatus>({ kind: 'loading' })
  // The avatar never reaches the prompt: leave it out rather than post a data URL on every keystroke.
  const { avatar: _avatar, ...body } = profile
  const key = JSON.stringify(body)

  useEffect(() => {
    let live = true
    const timer = setTimeout(() => {
      client.preview(JSON.parse(key) as Partial<Profile>).then(
        (reply) => {
          if (live) setStatus({ kind: 'ready', reply })
        },
        (error: unknown) => {
          if (live) setStatus({ kind: 'failed', message: describeError(t, error) })
        },
      )
    }, delay)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [client, key, delay, t])

  return (
    <section className="ap-panel ap-preview" aria-label={t('preview.title')}>
      <div className="ap-row ap-row-between">
        <h3>{t('preview.title')}</h3>
        {status.kind === 'ready' && (
          <span className="ap-count">
            {t('preview.size', { chars: status.reply.chars, tokens: status.reply.tokens })}
          </span>
        )}
      </div>
      <div className="ap-hint">{t('preview.draft')}</div>
      {status.kind === 'loading' && <div className="ap-placeholder">{t('preview.loading')}</div>}
      {status.kind === 'failed' && (
        <div className="ap-error" role="alert">
          {t('preview.failed', { message: status.message })}
        </div>
      )}
      {status.kind === 'ready' &&
        (status.reply.text.trim() === '' ? (
          <div className="ap-placeholder">{t('preview.empty')}</div>
        ) : (
          <pre className="ap-preview-text">{status.reply.text}</pre>
        ))}
    </section>
  )
}
