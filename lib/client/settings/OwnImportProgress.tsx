/**
 * The progress of the background import of a large own file: a progress bar (done of total, read out by screen
 * readers) while it runs, found again when the user leaves the page and comes back, and the import's report when it
 * ended while no import on this page was waiting for it. Polls the status route while an import runs (the push
 * channel says the profiles changed, not how far an import is). Owns the polling and the bar; the import itself is
 * started by ProfileFiles.tsx.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { OwnImportStatus } from '../../shared/own-import.ts'
import { useApi, type ApiClient } from '../data/api.ts'
import { noticeText } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import { fileLines } from './import-report.ts'
import { ProgressBar } from '../common/ProgressBar.tsx'

/** How often a running import's status is asked for. */
const OWN_IMPORT_POLL_MS = 500

/** Imports (by id) an import flow of this page waits for itself, and reports when they end. */
const awaited = new Set<number>()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Wait until the import `first` started is no longer running, and answer how it ended. */
export async function awaitOwnImport(client: ApiClient, first: OwnImportStatus): Promise<OwnImportStatus> {
  awaited.add(first.id)
  let status = first
  while (status.state === 'running') {
    await sleep(OWN_IMPORT_POLL_MS)
    status = await client.ownImport()
  }
  return status
}

/** The bar and, for an import that ended while the user was away, its report. `watch` changes when one starts. */
export function OwnImportProgress({ watch }: { watch: number }): ReactNode {
  const t = useT()
  const client = useApi()
  const [status, setStatus] = useState<OwnImportStatus | null>(null)
  // Imports this bar saw running: one that ends is reported here unless a flow of the page waited for it.
  const seenRunning = useRef(new Set<number>())
  // The page's import flows end with the section (their report had nowhere to go): from now on, one that ends is
  // reported by the bar of the section the user comes back to.
  useEffect(
    () => () => {
      awaited.clear()
    },
    [],
  )
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      let next: OwnImportStatus
      try {
        next = await client.ownImport()
      } catch {
        // The host is restarting, say: ask again a little later.
        if (live) timer = setTimeout(() => void tick(), OWN_IMPORT_POLL_MS * 4)
        return
      }
      if (!live) return
      setStatus(next)
      if (next.state === 'running') {
        seenRunning.current.add(next.id)
        timer = setTimeout(() => void tick(), OWN_IMPORT_POLL_MS)
      }
    }
    void tick()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [client, watch])
  if (status === null || status.state === 'idle') return null
  if (status.state === 'running') {
    const text = t('io.progress', { done: status.done, total: status.total })
    const label = t('io.progressLabel', { file: status.file })
    return (
      <div className="ap-io-progress" data-ap-own-import="">
        <ProgressBar label={label} done={status.done} total={status.total} text={text} />
      </div>
    )
  }
  if (!seenRunning.current.has(status.id) || awaited.has(status.id) || status.result === undefined) return null
  const lines = status.result.files.flatMap((f) => fileLines(t, f))
  return (
    <div role="status" className="ap-io-outcome">
      <p>
        {status.state === 'failed'
          ? t('io.importStopped', { file: status.file })
          : noticeText(t, status.result.notice) ||
            t('io.imported', { file: status.file, count: status.result.imported })}
      </p>
      {lines.length > 0 && (
        <ul>
          {lines.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  )
}
