/**
 * `/__ap/learn/export` and `/__ap/learn/plan` on the real handler and import worker: an export's raw bytes (the
 * mailed zip or conversations.json) are read and what it holds is answered (conversations, messages, the period); a
 * cross-site or non-loopback request, a wrong content type and a body past the cap are refused and read nothing; an
 * export that cannot be read says why and keeps the one read before; the plan of a pick (a day range, a word, About
 * you or a profile) says how many model calls and tokens it costs before anything is spent; the run's routes answer
 * no run before any and refuse a start that cannot learn (no export, memory off, no model) before any call is made;
 * reading past conversations refuses a workspace past its bounds and a host with no session query.
 */
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHandler } from '../../lib/http/routes.ts'
import { EXPORT_LIMITS } from '../../lib/learn/conversation.ts'
import { parseExport } from '../../lib/learn/export-read.ts'
import { selectConversations } from '../../lib/learn/select.ts'
import { holdConversations } from '../../lib/learn/export-parts.ts'
import { planLearning } from '../../lib/learn/run/plan.ts'
import { DEFAULT_CONFIG } from '../../lib/config/config.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { chatGptExport, claudeExport, exportZip } from '../support/learn-exports.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'
import { freshStore } from '../support/store-helpers.ts'
import { LearnRunner } from '../../lib/learn/run/runner.ts'
import { runFiles } from '../../lib/store/learn-run-file.ts'

let store: ProfileStore
let dispose: () => Promise<void>
let handler: ReturnType<typeof createHandler>
let server: Server
let api: HttpClient
let port: number
/** The model calls the learning run made (none of these specs lets one through). */
const asked: string[] = []

beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
  const log = { warn: () => undefined, error: () => undefined }
  // A host with no default model and a model service that is never reached: every start here is refused first.
  const runner = new LearnRunner({
    store,
    log,
    files: runFiles(store.file),
    excerptChars: DEFAULT_CONFIG.memory.excerptChars,
    defaultRoute: () => undefined,
    quiet: async () => undefined,
    ask: async (_route, prompt) => {
      asked.push(prompt)
      throw new Error('no model in this spec')
    },
  })
  handler = createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => routeMeta(store),
    trustedHosts: () => [],
    log,
    learn: () => runner,
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  api = httpClient(port)
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await handler.imports.close()
  await dispose()
})

const DAY = 86_400_000
const JAN1 = Date.UTC(2025, 0, 1)

/** POST an export's bytes as `type`, with extra headers. */
const upload = (bytes: Buffer, type = 'application/zip', headers: Record<string, string> = {}) =>
  api.send({ method: 'POST', path: '/__ap/learn/export', body: bytes, headers: { 'content-type': type, ...headers } })

describe('reading an export to learn from', () => {
  it('reads the mailed zip in the worker and says what it holds: conversations, messages, the period', async () => {
    const made = claudeExport(40, 3)
    const r = await upload(exportZip(made.conversations))
    expect(r.status).toBe(200)
    const messages = made.expected.reduce((n, c) => n + c.messages.length, 0)
    expect(r.json.found).toMatchObject({ service: 'claude', conversations: 40, messages, from: JAN1 })
    expect(r.json.found.to).toBeGreaterThanOrEqual(JAN1 + 39 * DAY)
    expect(r.json.found.to).toBeLessThan(JAN1 + 40 * DAY)
    // Asked again (the page came back): the same.
    expect((await api.get('/__ap/learn/export')).json).toEqual(r.json)
  })

  it('reads conversations.json sent alone, and a ChatGPT export', async () => {
    const made = chatGptExport(12, 5)
    const r = await upload(Buffer.from(JSON.stringify(made.conversations)), 'application/json')
    expect(r.json.found).toMatchObject({ service: 'chatgpt', conversations: 12 })
  })

  it('refuses a cross-site request and a Host that is not loopback, and reads nothing', async () => {
    const bytes = exportZip(claudeExport(3).conversations)
    const cross = await upload(bytes, 'application/zip', { 'sec-fetch-site': 'cross-site' })
    expect(cross.status).toBe(403)
    const elsewhere = await upload(bytes, 'application/zip', { host: 'evil.example:80' })
    expect(elsewhere.status).toBe(403)
    const origin = await upload(bytes, 'application/zip', { origin: 'http://evil.example' })
    expect(origin.status).toBe(403)
    expect((await api.get('/__ap/learn/export')).json).toEqual({})
  })

  it('refuses a body a form could send (no preflight) by its content type, naming the field', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '']) {
      const r = await upload(exportZip(claudeExport(2).conversations), type)
      expect(r.status).toBe(415)
      expect(r.json.error.field).toBe('content-type')
    }
    expect((await api.get('/__ap/learn/export')).json).toEqual({})
  })

  it('refuses a body declared past the cap before reading it, naming the limit', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /__ap/learn/export HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/zip\r\n` +
            `Content-Length: ${EXPORT_LIMITS.fileBytes + 1}\r\nConnection: close\r\n\r\nPK`,
        )
      })
      let text = ''
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')))
      socket.on('end', () => resolve(text))
      socket.on('close', () => resolve(text))
      socket.on('error', reject)
    })
    expect(reply).toMatch(/^HTTP\/1\.1 413/)
    expect(reply).toContain(`"limit":${EXPORT_LIMITS.fileBytes}`)
  })

  it('says why a file is no export, and keeps the export read before', async () => {
    const first = await upload(exportZip(claudeExport(5).conversations))
    const bad = await upload(Buffer.from(JSON.stringify([{ hello: 1 }])), 'application/json')
    expect(bad.status).toBe(200)
    expect(bad.json.refused).toMatchObject({ key: 'exportNotExport' })
    const noJson = await upload(exportZip([]).subarray(0, 40))
    expect(noJson.json.refused).toBeDefined()
    expect((await api.get('/__ap/learn/export')).json).toEqual(first.json)
  })
})

describe('the plan of learning, before anything is spent', () => {
  const made = claudeExport(30, 9)
  const read = parseExport(exportZip(made.conversations))
  const limit = DEFAULT_CONFIG.memory.excerptChars

  it('is refused before an export is read, and for a profile that is not there', async () => {
    const none = await api.post('/__ap/learn/plan', { into: { user: true } })
    expect(none.status).toBe(404)
    expect(none.json.error.field).toBe('export')
    await upload(exportZip(made.conversations))
    const gone = await api.post('/__ap/learn/plan', { into: { profileId: 'nobody' } })
    expect(gone.status).toBe(404)
    expect(gone.json.error.field).toBe('into.profileId')
  })

  it('counts the calls and tokens of all, a day range and a word', async () => {
    await upload(exportZip(made.conversations))
    const all = await api.post('/__ap/learn/plan', { into: { user: true } })
    expect(all.status).toBe(200)
    expect(all.json.conversations).toBe(30)
    // Each of these short conversations is one call; the tokens are what the extraction requests send.
    expect(all.json.calls).toBe(30)
    expect(all.json).toEqual({
      conversations: 30,
      messages: made.expected.reduce((n, c) => n + c.messages.length, 0),
      calls: 30,
      inputTokens: (await planLearning(read.conversations, limit)).inputTokens,
      outputTokens: 30 * 800,
    })
    const range = await api.post('/__ap/learn/plan', {
      into: { user: true },
      from: JAN1 + 10 * DAY,
      to: JAN1 + 14 * DAY + DAY - 1,
    })
    expect(range.json.conversations).toBe(5)
    expect(range.json.calls).toBe(5)
    expect(range.json.inputTokens).toBeLessThan(all.json.inputTokens)
    const word = await api.post('/__ap/learn/plan', { into: { user: true }, word: 'LISBON' })
    const held = holdConversations(read.conversations)
    expect(word.json.conversations).toBe((await selectConversations(held, { word: 'lisbon' })).length)
    expect(word.json.conversations).toBeGreaterThan(0)
    expect(word.json.conversations).toBeLessThan(30)
  })

  it('shows each call the memory that learns, so a fuller memory costs more tokens', async () => {
    await upload(exportZip(made.conversations))
    const before = (await api.post('/__ap/learn/plan', { into: { user: true } })).json.inputTokens
    await api.command({ op: 'user.set', items: [{ text: '住在青岛，在一家做海洋仪器的公司做嵌入式开发' }] })
    const after = (await api.post('/__ap/learn/plan', { into: { user: true } })).json.inputTokens
    expect(after).toBeGreaterThan(before)
    const general = store.state.profiles[0]!.id
    expect((await api.post('/__ap/learn/plan', { into: { profileId: general } })).json.inputTokens).toBe(before)
  })

  it('refuses to plan learning into a profile whose memory is off: it learns nothing', async () => {
    await upload(exportZip(made.conversations))
    const general = store.state.profiles[0]!.id
    await api.command({ op: 'profile.update', id: general, patch: { memoryEnabled: false } })
    const off = await api.post('/__ap/learn/plan', { into: { profileId: general } })
    expect(off.status).toBe(409)
    expect(off.json.error).toMatchObject({ field: 'into.profileId', rule: 'learn.memory-off' })
    expect((await api.post('/__ap/learn/plan', { into: { user: true } })).status).toBe(200)
  })

  it('refuses a pick with a field it does not know or a word too long, naming the field', async () => {
    await upload(exportZip(made.conversations))
    const odd = await api.post('/__ap/learn/plan', { into: { user: true }, spend: 'all' })
    expect(odd.status).toBe(400)
    expect(odd.json.error.field).toBe('spend')
    const long = await api.post('/__ap/learn/plan', { into: { user: true }, word: 'x'.repeat(201) })
    expect(long.json.error).toMatchObject({ field: 'word', limit: 200 })
  })
})

describe('the learning run over HTTP', () => {
  it('answers no run before any, and refuses to control one that is not there', async () => {
    expect((await api.get('/__ap/learn/run')).json).toEqual({})
    const none = await api.post('/__ap/learn/control', { action: 'pause' })
    expect(none.status).toBe(404)
    expect(none.json.error.field).toBe('run')
    const odd = await api.post('/__ap/learn/control', { action: 'explode' })
    expect(odd.status).toBe(400)
    expect(odd.json.error.field).toBe('action')
  })

  it('refuses a start before an export, into a memory that is off, and with no model, spending nothing', async () => {
    const none = await api.post('/__ap/learn/start', { into: { user: true } })
    expect(none.status).toBe(404)
    expect(none.json.error.field).toBe('export')
    await upload(exportZip(claudeExport(3, 2).conversations))
    const general = store.state.profiles[0]!.id
    await api.command({ op: 'profile.update', id: general, patch: { memoryEnabled: false } })
    const off = await api.post('/__ap/learn/start', { into: { profileId: general } })
    expect(off.status).toBe(409)
    expect(off.json.error).toMatchObject({ field: 'into.profileId', rule: 'learn.memory-off' })
    const noModel = await api.post('/__ap/learn/start', { into: { user: true } })
    expect(noModel.status).toBe(409)
    expect(noModel.json.error).toMatchObject({ field: 'model', rule: 'learn.no-model' })
    expect((await api.get('/__ap/learn/run')).json).toEqual({})
    expect(asked).toEqual([])
  })
})

describe('reading past conversations to learn from', () => {
  it('refuses a workspace that is not one line or too long, naming cwd, and says when there is no session query', async () => {
    const none = await api.post('/__ap/learn/past', {})
    expect(none.status).toBe(404)
    expect(none.json.error.message).toContain('session query')
    const long = await api.post('/__ap/learn/past', { cwd: `/${'x'.repeat(1024)}` })
    expect(long.status).toBe(400)
    expect(long.json.error).toMatchObject({ field: 'cwd', limit: 1024 })
    const lines = await api.post('/__ap/learn/past', { cwd: '/a\n/b' })
    expect(lines.json.error.field).toBe('cwd')
    // Nothing was taken in place of an export.
    expect((await api.get('/__ap/learn/export')).json).toEqual({})
  })
})
