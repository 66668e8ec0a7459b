/**
 * Reading a ChatGPT or Claude data export: the zip the service mails (its conversations.json found and expanded
 * a chunk at a time within bounds by lib/interop's zip reader) or the conversations.json alone, split into
 * conversations by one linear scan of the chunks as they come (json-split.ts) and each parsed alone by the parser of its service, which the first conversation tells.
 * Everything within EXPORT_LIMITS, and every refusal an ImportError naming the limit. Pure (no Node built-ins), so it
 * runs in the import worker; it never sees the store.
 */
import { errorText } from '../shared/errors.ts'
import type { FileError } from '../shared/import-notes.ts'
import { isZip } from '../interop/card-charx.ts'
import { listZip, streamEntry, type ZipEntry } from '../interop/zip-read.ts'
import { chatGptConversation } from './chatgpt.ts'
import { claudeConversation } from './claude.ts'
import {
  EXPORT_LIMITS,
  type ExportLimits,
  type ExportService,
  type LearnConversation,
  type ParsedExport,
} from './conversation.ts'
import { ArraySplitter } from './json-split.ts'
import { ImportError } from '../shared/errors.ts'

/** The name of the file in an export that holds the conversations. */
const CONVERSATIONS = 'conversations.json'

/**
 * Compressed bytes expanded at a time: 16 KB steps read a 25 MB conversations.json 2.6 times faster than a card's
 * 1 KB steps (1.6 s against 4.1 s on a loaded 2-core machine), and one step expands to at most about 16 MB past the cap.
 */
const EXPAND_STEP = 16 * 1024

/** How reading an export ended: the export, or why it cannot be read (for the page to word). */
export type ExportRead = { ok: true; export: ParsedExport } | { ok: false; error: FileError }

/** The conversations.json of an export zip: at its root, else the least deep one (an export unpacked and zipped again). */
function conversationsEntry(entries: readonly ZipEntry[]): ZipEntry {
  let best: ZipEntry | undefined
  let bestDepth = Infinity
  for (const e of entries) {
    const parts = e.name.split(/[\\/]/)
    if (parts[parts.length - 1] !== CONVERSATIONS || parts.includes('..')) continue
    if (parts.length < bestDepth) {
      best = e
      bestDepth = parts.length
    }
  }
  if (best === undefined) throw new ImportError('file', 'exportNoConversations')
  return best
}

/**
 * The bytes of conversations.json into `push`, as they come: the file itself at once, or expanded from the zip a
 * chunk at a time (never the whole expanded file in memory: 200 MB of it held 400 MB at the peak).
 */
function conversationsBytes(bytes: Uint8Array, limits: ExportLimits, push: (chunk: Uint8Array) => void): void {
  if (bytes.length > limits.fileBytes)
    throw new ImportError('file', 'exportTooLarge', { size: bytes.length, limit: limits.fileBytes })
  if (!isZip(bytes)) {
    if (bytes.length > limits.jsonBytes)
      throw new ImportError('file', 'exportTooLarge', { size: bytes.length, limit: limits.jsonBytes })
    return push(bytes)
  }
  const entry = conversationsEntry(listZip(bytes, limits.entries))
  if (entry.size > limits.jsonBytes)
    throw new ImportError(CONVERSATIONS, 'exportTooLarge', { size: entry.size, limit: limits.jsonBytes })
  streamEntry(bytes, entry, CONVERSATIONS, limits.jsonBytes, EXPAND_STEP, push)
}

/** The service whose conversation `value` is, by the fields only its export has. */
function serviceOf(value: unknown): ExportService | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if ('mapping' in value) return 'chatgpt'
  if ('chat_messages' in value) return 'claude'
  return undefined
}

/**
 * Read an export's bytes within `limits`; throws an ImportError naming the limit or the fault. With `sink`, each
 * conversation is handed to it as it is read and the answer's list is empty (the worker sends them on as it goes).
 */
export function parseExport(
  bytes: Uint8Array,
  limits: ExportLimits = EXPORT_LIMITS,
  sink?: (c: LearnConversation) => void,
): ParsedExport {
  const decoder = new TextDecoder('utf-8')
  let service: ExportService | undefined
  const conversations: LearnConversation[] = []
  let skipped = 0
  let messages = 0
  const splitter = new ArraySplitter(
    CONVERSATIONS,
    {
      depth: limits.depth,
      values: limits.values,
      elementValues: limits.conversationValues,
      elements: limits.conversations,
    },
    (element) => {
      let value: unknown
      try {
        value = JSON.parse(decoder.decode(element))
      } catch {
        throw new ImportError(CONVERSATIONS, 'notJson')
      }
      service ??= serviceOf(value)
      if (service === undefined) throw new ImportError(CONVERSATIONS, 'exportNotExport')
      const c = service === 'chatgpt' ? chatGptConversation(value) : claudeConversation(value)
      if (c === undefined) return void skipped++
      messages += c.messages.length
      if (messages > limits.messages)
        throw new ImportError(CONVERSATIONS, 'exportTooManyMessages', { limit: limits.messages })
      if (sink === undefined) conversations.push(c)
      else sink(c)
    },
  )
  conversationsBytes(bytes, limits, (chunk) => {
    splitter.push(chunk)
  })
  splitter.end()
  if (service === undefined) throw new ImportError(CONVERSATIONS, 'exportEmpty')
  return { service, conversations, skipped }
}

/**
 * Read an export's bytes into its conversations (within `limits`, handed to `sink` as they are read when it is
 * given), or the reason it cannot be read. Never throws.
 */
export function readExport(
  bytes: Uint8Array,
  limits: ExportLimits = EXPORT_LIMITS,
  sink?: (c: LearnConversation) => void,
): ExportRead {
  try {
    return { ok: true, export: parseExport(bytes, limits, sink) }
  } catch (e) {
    if (e instanceof ImportError)
      return {
        ok: false,
        error: { ...e.note, field: e.field, ...(e.limit === undefined ? {} : { limit: e.limit }) },
      }
    return { ok: false, error: { key: 'unreadable', field: 'file', params: { why: errorText(e).slice(0, 200) } } }
  }
}
