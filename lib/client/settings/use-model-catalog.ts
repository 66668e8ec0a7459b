/**
 * React hook of the host's model catalog for the profile editor's model section (`GET /__ap/models`): loading, the
 * providers and their models, or why it could not be read, with a retry. A read that lands after the section is
 * gone is dropped. It never renders and never changes a profile.
 */
import { useEffect, useState } from 'react'
import type { ModelCatalog } from '../../shared/models.ts'
import { useApi } from '../data/api.ts'
import { describeError } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'

/** Where the read of the catalog is: under way, done, or failed (its failure worded). */
type Load = { kind: 'loading' } | { kind: 'ready'; catalog: ModelCatalog } | { kind: 'failed'; message: string }

/** The catalog's read and its retry. */
export function useModelCatalog(): { load: Load; retry(): void } {
  const t = useT()
  const client = useApi()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    let live = true
    client.models().then(
      (catalog) => {
        if (live) setLoad({ kind: 'ready', catalog })
      },
      (error: unknown) => {
        if (live) setLoad({ kind: 'failed', message: describeError(t, error) })
      },
    )
    return () => {
      live = false
    }
  }, [client, t, attempt])
  const retry = (): void => {
    setLoad({ kind: 'loading' })
    setAttempt((n) => n + 1)
  }
  return { load, retry }
}
