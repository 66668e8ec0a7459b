/**
 * A command as it arrives (HTTP, the model's tools, the host's own parts) checked by its op's schema
 * (shared/schema-commands.ts): an object, a known op, known keys only, every field within its rules. What needs the
 * live state is the command's own to check (lib/commands). It never runs a command.
 */
import { COMMAND_SCHEMAS, READ_IMPORT_SCHEMA, isOp, type CommandOf, type Op } from '../shared/schema-commands.ts'
import { READ_FILES } from '../shared/files.ts'
import { invalid, parse, record } from './core.ts'

/** A command its schema accepted, discriminated by `op`. */
export type ParsedCommand = { [K in Op]: CommandOf<K> }[Op]

/**
 * The commands {@link parseCommand} returned. The route parses a command at the door and hands that object to the
 * store, which parses what it is handed: the same object is not parsed twice (its fields are the schema's output, and
 * the route only swaps an avatar URL for the stored avatar it names).
 */
const parsed = new WeakSet<object>()

/** `v` as a command of a known op, or the refusal of its first broken rule (`command.<key>` for an unknown key). */
export function parseCommand(v: unknown): ParsedCommand {
  if (typeof v === 'object' && v !== null && parsed.has(v)) return v as ParsedCommand
  const cmd = record(v, 'command')
  const op = cmd.op
  if (!isOp(op))
    throw invalid(
      'op',
      typeof op === 'string' ? `is not a known operation ("${op.slice(0, 40)}")` : 'is missing or not a string',
    )
  // An import whose files the worker already read (each checked there by its own schema) carries them beside it; its
  // list may hold only each file's name and format, and the reads go on with the parsed command.
  if (op === 'profiles.importFiles' && READ_FILES in cmd) {
    return Object.assign(parse(READ_IMPORT_SCHEMA, cmd, '', 'command'), {
      [READ_FILES]: cmd[READ_FILES],
    }) as ParsedCommand
  }
  const out = parse(COMMAND_SCHEMAS[op], cmd, '', 'command') as ParsedCommand
  parsed.add(out)
  return out
}
