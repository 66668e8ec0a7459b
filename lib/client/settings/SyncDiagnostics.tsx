/**
 * Diagnostics → the sync repositories: one row for the personal sync repository and one for each team library, each
 * saying where it is (credentials never shown), when it last pulled and pushed, and how the last try went in the
 * page's language (use-sync-rows.ts words them). Read-only; nothing for a host that sends no sync part.
 */
import type { ReactNode } from 'react'
import type { SyncDiagnostics } from '../../shared/library.ts'
import { useSyncRows, type RepoRow } from './use-sync-rows.ts'

/** One repository's row of the list. */
function Row({ row }: { row: RepoRow }): ReactNode {
  return (
    <>
      <dt>{row.title}</dt>
      <dd
        className={row.key === 'personal' ? 'ap-diag-sync' : 'ap-diag-library'}
        data-ap-repo={row.key}
        data-ap-last-sync={row.lastSync}
        data-ap-sync-pending={row.pending}
      >
        {row.where !== undefined && (
          <div>
            <code>{row.where}</code>
          </div>
        )}
        {row.lines.map((line, i) => (
          <div
            key={i}
            className={line.failed === true ? 'ap-error-message' : undefined}
            data-ap-sync-error={line.failed === true ? row.error : undefined}
          >
            {line.text}
          </div>
        ))}
      </dd>
    </>
  )
}

/** The rows, as `<dt>`/`<dd>` pairs of Diagnostics' list. */
export function SyncRows({ status }: { status: Partial<SyncDiagnostics> | undefined }): ReactNode {
  const rows = useSyncRows(status)
  return rows.map((row) => <Row key={row.key} row={row} />)
}
