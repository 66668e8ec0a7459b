/**
 * The conversations an export brings, as learning reads them: who said what and when, in the order of the branch the
 * user last saw, with nothing the services add around it (titles aside). Both export parsers (chatgpt.ts, claude.ts)
 * give this one shape, and the limits every export is read within are here. Types and constants only.
 */
import { EXPORT_FILE_BYTES } from '../shared/learn.ts'

/** The services whose data export we read, and dsh itself (the user's own past conversations, past-sessions.ts). */
export type ExportService = 'chatgpt' | 'claude' | 'dsh'

/** One message of a conversation: only what a person or the assistant wrote as text. */
export interface LearnMessage {
  role: 'user' | 'assistant'
  text: string
  /** Milliseconds since the epoch; 0 when the export does not say. */
  at: number
}

/** One conversation of an export. */
export interface LearnConversation {
  /** The service's id of the conversation ('' when it has none). */
  id: string
  title: string
  /** When it started, in milliseconds since the epoch; 0 when the export does not say. */
  at: number
  messages: LearnMessage[]
}

/** An export read: its service and its conversations (those with at least one message). */
export interface ParsedExport {
  service: ExportService
  conversations: LearnConversation[]
  /** Conversations left out: not an object, or no message of text on their branch. */
  skipped: number
}

/** The bounds an export is read within (EXPORT_LIMITS; tests lower some). */
export interface ExportLimits {
  fileBytes: number
  jsonBytes: number
  entries: number
  depth: number
  values: number
  conversationValues: number
  conversations: number
  messages: number
  messageChars: number
  titleChars: number
}

/**
 * The bounds an export is read within. A heavy user's conversations.json is tens of MB (a 186-conversation Claude
 * export is 25 MB; ChatGPT exports of years of daily use reach 100–200 MB); the archive around it adds pictures.
 * The JSON is split into conversations in one linear scan of its bytes and each is parsed alone, so the memory of a
 * read is the file's bytes plus one conversation, not a tree of the whole file.
 */
export const EXPORT_LIMITS: Readonly<ExportLimits> = {
  /** Bytes of the file (the zip, or conversations.json sent alone). */
  fileBytes: EXPORT_FILE_BYTES,
  /** Bytes conversations.json may expand to. */
  jsonBytes: 256 * 1024 * 1024,
  /** Entries of the zip (a ChatGPT export holds one file per picture: thousands). */
  entries: 100_000,
  /** Levels of nesting (a ChatGPT conversation nests about 8, metadata included). */
  depth: 64,
  /** JSON values (objects, arrays, commas) in the whole file: about 40 per ChatGPT message. */
  values: 40_000_000,
  /**
   * JSON values of one conversation, parsed at once: a conversation of 20,000 messages is about 800,000. What one
   * parse may build is bounded by it (10 million empty messages in one conversation would take gigabytes).
   */
  conversationValues: 1_000_000,
  /** Conversations of one export. */
  conversations: 100_000,
  /** Messages of one export, on the branches read. */
  messages: 2_000_000,
  /** Characters of one message kept (a pasted document is cut: learning sends at most 6,000 per call anyway). */
  messageChars: 20_000,
  /** Characters of a title kept. */
  titleChars: 200,
}
