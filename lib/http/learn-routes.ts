/**
 * `/__ap/learn/*`: learning from another assistant's data export. `POST /__ap/learn/export` takes the export's raw
 * bytes (the zip the service mails, or its conversations.json; a zip or JSON content type, or plain bytes, which a
 * cross-site form cannot send without a preflight), at most EXPORT_LIMITS.fileBytes, reads them in the import worker
 * and answers what the export holds or why it cannot be read; `GET` answers the same for the export last read.
 * `POST /__ap/learn/plan` answers what learning a pick of it would cost, before anything is spent. The fence
 * (fence.ts) has passed every request before it gets here. Owns these handlers only.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { EXPORT_LIMITS } from '../learn/conversation.ts'
import type { LearnExports } from '../learn/run/exports.ts'
import { EXPORT_TYPES, type LearnPick } from '../shared/learn.ts'
import type { State } from '../state/model.ts'
import { StoreError, brokeRule, invalid, record } from '../validate/state.ts'
import { readJsonBody, type Refusal } from './fence.ts'
import type { ImportPool } from './import-pool.ts'
import { json, refusalReply, type Reply } from './reply.ts'

/** Characters of the word a pick may name. */
const PICK_WORD_CHARS = 200

/** Characters of a model's provider or name. */
const MODEL_CHARS = 200

/** A refusal of a body not sent as one of EXPORT_TYPES. */
function wrongType(headers: IncomingHttpHeaders): Refusal | null {
  const raw = headers['content-type'] ?? ''
  const type = raw.split(';')[0]!.trim().toLowerCase()
  if (EXPORT_TYPES.includes(type)) return null
  return {
    status: 415,
    code: 'unsupported-media-type',
    message: `the export must be sent as ${EXPORT_TYPES.join(', ')}, not ${JSON.stringify(raw.slice(0, 120))}`,
    field: 'content-type',
  }
}

/** `GET /__ap/learn/export`: what the export last read holds. */
export function getLearnExport(learn: LearnExports): Reply {
  return json(JSON.stringify(learn.reply()))
}

/**
 * `POST /__ap/learn/export`: read the body as an export in the import worker. The body is taken as it arrives under
 * the byte cap (fence.ts's reader, its bytes handed on unparsed); an export that cannot be read answers why, naming
 * the limit, and leaves the export read before in place.
 */
export async function postLearnExport(learn: LearnExports, imports: ImportPool, req: IncomingMessage): Promise<Reply> {
  const type = wrongType(req.headers)
  if (type !== null) return refusalReply(type)
  const body = await readJsonBody(req, EXPORT_LIMITS.fileBytes, {
    from: 0,
    parse: (bytes) => Promise.resolve({ ok: true, value: bytes }),
  })
  // A sender gone mid-body is answered on a socket nobody reads; nothing was read or kept.
  if ('gone' in body) return refusalReply({ status: 400, code: 'invalid', message: 'the body was cut short' })
  if (!body.ok) return refusalReply(body.refusal)
  const read = await imports.readExport(body.value as Buffer)
  return json(JSON.stringify(learn.take(read)))
}

/** A day bound of a pick: a time in ms, or absent. */
function day(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalid(field, 'must be a time in milliseconds')
  return v
}

/** The pick a plan body names, every field checked. */
function pickOf(body: unknown): LearnPick {
  const b = record(body, 'body')
  for (const key of Object.keys(b))
    if (!['from', 'to', 'word', 'into', 'model'].includes(key)) throw invalid(key, 'is not a field of a pick')
  if (b.word !== undefined && typeof b.word !== 'string') throw invalid('word', 'must be a string')
  if (typeof b.word === 'string' && b.word.length > PICK_WORD_CHARS)
    throw invalid('word', `is longer than ${PICK_WORD_CHARS} characters`, PICK_WORD_CHARS)
  const into = record(b.into, 'into')
  const target =
    into.user === true
      ? ({ user: true } as const)
      : typeof into.profileId === 'string'
        ? { profileId: into.profileId }
        : undefined
  if (target === undefined) throw invalid('into', 'must be {"user": true} or {"profileId": …}')
  const pick: LearnPick = { into: target }
  const from = day(b.from, 'from')
  const to = day(b.to, 'to')
  if (from !== undefined) pick.from = from
  if (to !== undefined) pick.to = to
  if (typeof b.word === 'string' && b.word.trim() !== '') pick.word = b.word
  if (b.model !== undefined) {
    const m = record(b.model, 'model')
    for (const key of ['provider', 'model'] as const)
      if (typeof m[key] !== 'string' || m[key] === '' || m[key].length > MODEL_CHARS)
        throw invalid(`model.${key}`, `must be a name of at most ${MODEL_CHARS} characters`, MODEL_CHARS)
    pick.model = { provider: m.provider as string, model: m.model as string }
  }
  return pick
}

/** `POST /__ap/learn/plan`: what learning the pick of the export last read costs, with calls of `limit` characters. */
export function postLearnPlan(learn: LearnExports, state: State, limit: number, body: unknown): Reply {
  const plan = learn.plan(pickOf(body), state, limit)
  if (plan === 'no-export') throw new StoreError('not-found', 'export: no export has been read yet', 'export')
  if (plan === 'no-profile') throw new StoreError('not-found', 'into.profileId: no such profile', 'into.profileId')
  if (plan === 'memory-off')
    throw brokeRule(
      'conflict',
      'into.profileId: memory is off in this profile; it learns nothing',
      'into.profileId',
      'learn.memory-off',
    )
  return json(JSON.stringify(plan))
}
