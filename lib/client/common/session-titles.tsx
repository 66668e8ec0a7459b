/**
 * Conversations named by their titles: the host's session list (the `useSessions` hook every slot entry receives)
 * read once where an entry mounts, and handed down by context to what shows a memory's conversation (memory items,
 * the history). Owns the wording "来自对话「title」", with the short id as the name of a conversation the list does
 * not hold (deleted, or not titled yet). It never asks the host for anything itself.
 */
import { createContext, useContext, type ReactNode } from 'react'
import { shortSession } from './feedback.ts'
import { useT } from '../copy/locales.ts'

/** The slice of the host's session list read here. */
interface SessionListLike {
  byId: Readonly<Record<string, { title?: string } | undefined>>
}

/** The host's `useSessions` selector hook, as slot entries receive it. */
export type UseSessions = <R>(selector: (list: SessionListLike) => R) => R

const Titles = createContext<SessionListLike['byId']>({})

const byIdOf = (list: SessionListLike): SessionListLike['byId'] => list.byId

/** Reads the host's session list through `useSessions` (when the entry got one) for everything below it. */
export function SessionTitles({
  useSessions,
  children,
}: {
  useSessions: UseSessions | undefined
  children?: ReactNode
}): ReactNode {
  return useSessions === undefined ? children : <FromHost useSessions={useSessions}>{children}</FromHost>
}

function FromHost({ useSessions, children }: { useSessions: UseSessions; children?: ReactNode }): ReactNode {
  return <Titles.Provider value={useSessions(byIdOf)}>{children}</Titles.Provider>
}

/** React hook: "from conversation 「title」" for `sessionId`, or with its short id when it has no title here. */
export function useFromConversation(): (sessionId: string) => string {
  const t = useT()
  const byId = useContext(Titles)
  return (sessionId) => {
    const title = byId[sessionId]?.title?.trim()
    return title === undefined || title === ''
      ? t('memory.from', { session: shortSession(sessionId) })
      : t('memory.fromTitled', { title })
  }
}
