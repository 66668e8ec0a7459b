/**
 * What a process's resident memory is made of, read from /proc/<pid>/smaps: glibc's heaps (the main thread's `[heap]`
 * and each thread arena, a 64 MiB-aligned reservation of 64 MiB whose used part is read-write and the rest
 * inaccessible), file-backed pages (the node binary, libraries), and the rest of the anonymous memory (V8's heaps,
 * allocations glibc maps on their own, thread stacks). Why: the memory an import leaves is either garbage V8 has not
 * collected or memory glibc keeps after it was freed, and only this split tells a run's figure apart from the next
 * run's. Linux only; no attaching, so it can be read in every run.
 */
import { readFileSync } from 'node:fs'

/** One process's resident memory in MB, by kind. */
export interface RssParts {
  /** glibc's heaps: the main one and the thread arenas, in use or kept after free. */
  malloc: number
  /** Pages of files: the binary and the libraries. */
  file: number
  /** The other anonymous memory: V8's heaps above all. */
  other: number
}

const ARENA = 64 * 1024 * 1024

interface Mapping {
  start: number
  end: number
  perms: string
  path: string
  rss: number
}

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = []
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head !== null) {
      out.push({ start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perms: head[3]!, path: head[4]!, rss: 0 })
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss !== null && out.length > 0) out.at(-1)!.rss = Number(rss[1]) / 1024
  }
  return out
}

/** The resident memory of process `pid` by kind (see {@link RssParts}). */
export function rssParts(pid: number): RssParts {
  const maps = mappings(pid)
  const parts: RssParts = { malloc: 0, file: 0, other: 0 }
  maps.forEach((m, i) => {
    if (m.path === '[heap]') parts.malloc += m.rss
    else if (m.path.startsWith('/')) parts.file += m.rss
    else if (m.path === '' && isArena(m, maps[i + 1])) parts.malloc += m.rss
    else parts.other += m.rss
  })
  return parts
}

/** Whether `m` is the used part of a glibc thread arena: 64 MiB-aligned, and with what follows it 64 MiB. */
function isArena(m: Mapping, next: Mapping | undefined): boolean {
  if (m.start % ARENA !== 0 || m.perms !== 'rw-p') return false
  if (m.end - m.start === ARENA) return true
  return next !== undefined && next.start === m.end && next.perms === '---p' && next.end - m.start === ARENA
}
