/**
 * The error boundary every slot entry of this plugin sits in, and `guard()`, the wrapper that puts a component
 * inside it. A throwing component shows a readable error with its stack instead of a blank area, so the user and a
 * bug report can tell what failed, and the host never sees the throw, so it never retires our entry. It never catches
 * errors outside React rendering (event handlers report their own failures).
 */
import { Component, type ComponentType, type ErrorInfo, type ReactNode } from 'react'
import { activeLocale, translate } from '../copy/locales.ts'

/** Props of {@link ApBoundary}. */
export interface ApBoundaryProps {
  children?: ReactNode
  /** One-line variant for small seats (composer, turn head): the message only, no stack. */
  compact?: boolean
  /** Names the failed part in the message and in the console. */
  label?: string
}

interface BoundaryState {
  error: Error | null
}

/** Catches a render failure below it and shows it as text; "Retry" renders the children again. */
export class ApBoundary extends Component<ApBoundaryProps, BoundaryState> {
  override state: BoundaryState = { error: null }

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) }
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`agent-profiles: ${this.props.label ?? 'component'} failed to render:`, error, info.componentStack)
  }

  override render(): ReactNode {
    const { error } = this.state
    if (error === null) return this.props.children ?? null
    // Read the language directly: a hook is not allowed here, and the copy must not depend on the part that failed.
    const locale = activeLocale()
    const title = translate(locale, 'boundary.title')
    const retry = (
      <button
        type="button"
        className="ap-btn ap-btn-small"
        onClick={() => {
          this.setState({ error: null })
        }}
      >
        {translate(locale, 'action.retry')}
      </button>
    )
    if (this.props.compact === true) {
      return (
        <span className="ap-error ap-error-compact" role="alert" title={error.stack ?? error.message}>
          ⚠ {title}: {error.message} {retry}
        </span>
      )
    }
    return (
      <div className="ap-error" role="alert">
        <strong className="ap-error-title">
          {this.props.label === undefined ? title : `${title} (${this.props.label})`}
        </strong>
        <div className="ap-error-message">{error.message}</div>
        <div className="ap-hint">{translate(locale, 'boundary.hint')}</div>
        {error.stack !== undefined && <pre className="ap-error-stack">{error.stack}</pre>}
        {retry}
      </div>
    )
  }
}

/**
 * Wrap `Inner` in {@link ApBoundary}, forwarding every prop the host passes (a wrapper
 * without a props parameter once silently dropped them).
 */
export function guard<P extends object>(
  Inner: ComponentType<P>,
  options: Omit<ApBoundaryProps, 'children'> = {},
): ComponentType<P> {
  const label = options.label ?? Inner.displayName ?? Inner.name
  function Guarded(props: P): ReactNode {
    return (
      <ApBoundary compact={options.compact ?? false} label={label}>
        <Inner {...props} />
      </ApBoundary>
    )
  }
  Guarded.displayName = `Guarded(${label})`
  return Guarded
}
