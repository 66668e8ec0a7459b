/**
 * React hook of the team libraries' list and its add form: the list as the host last answered it (read when shown
 * and taken from each action's answer), the form's remote, branch and name, and the actions (add, remove, sync now),
 * each through the library routes with {@link useAction}'s busy state and outcome. It never renders.
 */
import { useEffect, useState } from 'react'
import { useApi } from '../data/api.ts'
import { useAction, type Action } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'
import { DEFAULT_BRANCH } from '../../shared/sync.ts'
import { defaultLibraryName, type LibrariesReply } from '../../shared/library.ts'

/** The add form's fields. */
export interface LibraryForm {
  remote: string
  branch: string
  name: string
  setRemote(v: string): void
  setBranch(v: string): void
  setName(v: string): void
}

/** What {@link useTeamLibraries} gives the section. */
export interface TeamLibrariesState extends Pick<Action, 'busy' | 'outcome'> {
  /** The last answer; null until the first read. */
  reply: LibrariesReply | null
  form: LibraryForm
  /** Add the library the form names, then empty its remote and name. */
  add(): void
  remove(library: { id: string; name: string }): void
  /** Pull every library (and the user's own sync) now. */
  syncNow(): void
}

/** The team libraries' list, form and actions. */
export function useTeamLibraries(): TeamLibrariesState {
  const t = useT()
  const client = useApi()
  const [reply, setReply] = useState<LibrariesReply | null>(null)
  const [remote, setRemote] = useState('')
  const [branch, setBranch] = useState(DEFAULT_BRANCH)
  const [name, setName] = useState('')
  const { busy, outcome, run, fail } = useAction()
  useEffect(() => {
    client.libraries().then(setReply, fail)
  }, [client, fail])

  // Each action's answer is the list as it now is; `after` runs once it is shown, before the confirmation.
  const act = (job: () => Promise<LibrariesReply>, done: string, after?: () => void) =>
    void run(async () => {
      setReply(await job())
      after?.()
      return done
    })

  return {
    reply,
    busy,
    outcome,
    form: { remote, branch, name, setRemote, setBranch, setName },
    add: () =>
      act(
        () => client.addLibrary({ remote, branch, name }),
        t('library.added', { name: name.trim() || defaultLibraryName(remote) }),
        () => {
          setRemote('')
          setName('')
        },
      ),
    remove: (l) => act(() => client.removeLibrary(l.id), t('library.removed', { name: l.name })),
    syncNow: () =>
      act(async () => {
        await client.syncNow()
        return client.libraries()
      }, t('sync.done')),
  }
}
