/** Why a sync stopped without a git or network failure: its own module, so that every part of a run can say it. */

/** Why a sync stopped without a git or network failure. */
export class SyncStop extends Error {
  readonly reason: 'rewritten' | 'store-changed' | 'bad-file'
  constructor(reason: SyncStop['reason'], detail: string) {
    super(detail)
    this.reason = reason
  }
}
