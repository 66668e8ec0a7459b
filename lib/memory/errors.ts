/** The memory room's error: why a background model call failed. No behaviour but its fields. */
import type { FailureKind } from '../shared/reasons.ts'

/** The one error a background call throws. */
export class ModelCallError extends Error {
  readonly kind: FailureKind
  /** Provider failure code or HTTP status, when the host reported one. */
  readonly code?: string
  constructor(kind: FailureKind, message: string, code?: string) {
    super(message)
    this.kind = kind
    if (code !== undefined) this.code = code
  }
}
