/**
 * Past dsh conversations in bulk for bench/learn-past.bench.ts: a few conversations the real `dsh web` ran and kept
 * (its session logs as it wrote them), copied as many times as asked into another home's session store, each copy
 * under a new session id. A log is a series of zstd frames; each frame is decoded, the session id swapped for the
 * copy's (same length, so nothing else shifts) and encoded again, so every copy is a log the host reads as its own.
 * It never runs a conversation itself and never writes outside the homes it is given.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib'

/** One kept conversation: the folder of its workspace in the session store, its id, its log's frames decoded. */
export interface KeptLog {
  project: string
  id: string
  file: string
  frames: string[]
}

/** The zstd frames of `log` (each starts with the frame magic number). */
function framesOf(log: Buffer): Buffer[] {
  const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
  const starts: number[] = []
  for (let i = log.indexOf(magic); i >= 0; i = log.indexOf(magic, i + 1)) starts.push(i)
  return starts.map((s, k) => log.subarray(s, starts[k + 1] ?? log.length))
}

/** The conversations kept in the session store of home `dir`. */
export function keptLogs(dir: string): KeptLog[] {
  const root = join(dir, 'sessions')
  return readdirSync(root).flatMap((project) =>
    readdirSync(join(root, project)).flatMap((folder) =>
      readdirSync(join(root, project, folder)).map((file) => ({
        project,
        id: folder,
        file,
        frames: framesOf(readFileSync(join(root, project, folder, file))).map((f) => zstdDecompressSync(f).toString()),
      })),
    ),
  )
}

/** Write `count` copies of `logs` (taken in turn) into the session store of home `dir`, each under a new id. */
export function copyLogs(logs: readonly KeptLog[], dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const log = logs[i % logs.length]!
    const id = `session-${randomUUID()}`
    if (id.length !== log.id.length) throw new Error(`session id ${log.id} is not of the expected form`)
    const folder = join(dir, 'sessions', log.project, id)
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const frames = log.frames.map((f) => zstdCompressSync(Buffer.from(f.split(log.id).join(id))))
    writeFileSync(join(folder, log.file), Buffer.concat(frames), { mode: 0o600 })
  }
}
