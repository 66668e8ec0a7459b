import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  checkJsonContentType,
  checkMethod,
  checkRequestOrigin,
  readJsonBody,
  type BodyResult,
} from '../../lib/http/fence.ts'
import { BodyBytes } from '../../lib/http/body-bytes.ts'

const HOST = '127.0.0.1:3092'

function fence(headers: IncomingHttpHeaders, trusted: string[] = []) {
  return checkRequestOrigin(headers, trusted)
}

describe('Host: a loopback authority or a trusted host (DNS rebinding)', () => {
  it('refuses a request without Host and passes one with a loopback Host', () => {
    expect(fence({})).toMatchObject({ status: 403, code: 'forbidden', field: 'host' })
    expect(fence({ host: HOST })).toBeNull()
  })

  it('refuses a Host that is not a bare authority', () => {
    for (const host of ['127.0.0.1/evil', 'user@127.0.0.1', '127.0.0.1:3092?x', 'a b', '', '127.0.0.1:99999']) {
      expect(fence({ host }), host).toMatchObject({ status: 403, field: 'host' })
    }
  })

  it('passes every loopback spelling and refuses look-alikes', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:3092', 'localhost:3092', 'LOCALHOST:1', '[::1]:3092', '127.9.8.7:80']) {
      expect(fence({ host }), host).toBeNull()
    }
    for (const host of [
      'evil.example',
      'evil.example:3092',
      '0.0.0.0:3092',
      '127.0.0.1.evil.example',
      'localhost.evil.example:3092',
      '192.168.1.20:3092',
      '[::2]:3092',
    ]) {
      expect(fence({ host }), host).toMatchObject({ status: 403, code: 'forbidden', field: 'host' })
    }
  })

  it('trusts a port-less entry on any port and a host:port entry on that port only', () => {
    expect(fence({ host: 'lan.example:4000' }, ['lan.example'])).toBeNull()
    expect(fence({ host: 'LAN.example:5000' }, ['lan.example'])).toBeNull()
    expect(fence({ host: 'box.example:3092' }, ['box.example:3092'])).toBeNull()
    expect(fence({ host: 'box.example:3093' }, ['box.example:3092'])).toMatchObject({ field: 'host' })
    expect(fence({ host: 'other.example:3092' }, ['box.example:3092', 'lan.example'])).toMatchObject({ field: 'host' })
    expect(fence({ host: '192.168.1.20:3092' }, ['192.168.1.20'])).toBeNull()
  })

  it('names the refused Host in the message, cut short when huge', () => {
    const refusal = fence({ host: `${'a'.repeat(5000)}.example` })!
    expect(refusal.message).toContain('neither a loopback address nor a trusted host')
    expect(refusal.message.length).toBeLessThan(300)
  })
})

describe('Sec-Fetch-Site', () => {
  it('refuses cross-site and passes same-origin, same-site and none', () => {
    expect(fence({ host: HOST, 'sec-fetch-site': 'cross-site' })).toMatchObject({
      status: 403,
      field: 'sec-fetch-site',
    })
    for (const site of ['same-origin', 'same-site', 'none'])
      expect(fence({ host: HOST, 'sec-fetch-site': site })).toBeNull()
  })
})

describe('Origin must match Host when present', () => {
  it('refuses a foreign origin, another port, another scheme family and garbage; passes its own origin', () => {
    for (const origin of [
      'http://evil.example',
      'http://127.0.0.1:9999',
      'http://localhost:3092',
      'file:///x',
      'chrome-extension://abc',
      'not a url',
    ]) {
      expect(fence({ host: HOST, origin }), origin).toMatchObject({ status: 403, code: 'forbidden', field: 'origin' })
    }
    expect(fence({ host: HOST, origin: `http://${HOST}` })).toBeNull()
    expect(fence({ host: 'localhost:80', origin: 'http://localhost' })).toBeNull()
  })

  it('refuses the literal null origin (sandboxed frames, file: pages)', () => {
    expect(fence({ host: HOST, origin: 'null' })).toMatchObject({
      status: 403,
      field: 'origin',
      message: expect.stringContaining('null'),
    })
  })

  it('judges by Origin before Referer', () => {
    expect(fence({ host: HOST, origin: 'http://evil.example', referer: `http://${HOST}/settings` })).toMatchObject({
      field: 'origin',
    })
  })
})

describe('Referer must match Host when there is no Origin', () => {
  it('refuses a foreign referer and passes a page of our own', () => {
    expect(fence({ host: HOST, referer: 'http://evil.example/page' })).toMatchObject({ status: 403, field: 'referer' })
    expect(fence({ host: HOST, referer: 'garbage' })).toMatchObject({ status: 403, field: 'referer' })
    expect(fence({ host: HOST, referer: `http://${HOST}/session/abc?x=1` })).toBeNull()
  })
})

describe('no browser markers at all (curl, health probes)', () => {
  it('passes on a loopback Host and is still refused on a foreign one', () => {
    expect(fence({ host: HOST, 'user-agent': 'curl/8' })).toBeNull()
    expect(fence({ host: 'rebound.example:3092', 'user-agent': 'curl/8' })).toMatchObject({ field: 'host' })
  })
})

describe('methods', () => {
  it('refuses a method a route does not serve with 405 and Allow', () => {
    expect(checkMethod('DELETE', ['POST'])).toMatchObject({
      status: 405,
      code: 'method-not-allowed',
      headers: { Allow: 'POST' },
    })
    expect(checkMethod('POST', ['GET'])).toMatchObject({ status: 405, headers: { Allow: 'GET, HEAD' } })
    expect(checkMethod('OPTIONS', ['POST'])).toMatchObject({ status: 405 })
    expect(checkMethod(undefined, ['GET'])).toMatchObject({ status: 405 })
  })

  it('passes the served method, and HEAD with GET', () => {
    expect(checkMethod('POST', ['POST'])).toBeNull()
    expect(checkMethod('GET', ['GET'])).toBeNull()
    expect(checkMethod('HEAD', ['GET'])).toBeNull()
    expect(checkMethod('HEAD', ['POST'])).not.toBeNull()
  })
})

describe('POST bodies must be declared JSON', () => {
  it('refuses text/plain, form posts, a missing type and a non-UTF-8 charset with 415', () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/jsonx',
      undefined,
    ]) {
      const headers = type === undefined ? {} : { 'content-type': type }
      expect(checkJsonContentType(headers), String(type)).toMatchObject({
        status: 415,
        code: 'unsupported-media-type',
        field: 'content-type',
      })
    }
  })

  it('passes application/json with or without a UTF-8 charset, in any case', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;Charset="UTF-8"']) {
      expect(checkJsonContentType({ 'content-type': type }), type).toBeNull()
    }
  })
})

describe('readJsonBody over a real socket', () => {
  const LIMIT = 64 * 1024
  let server: Server
  let port: number
  /** What the server saw of the last request: the outcome, whether its body was ever read, and socket bytes read. */
  let last: { result: BodyResult; everRead: boolean; socketBytes: number }

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readJsonBody(req, LIMIT).then((result) => {
        last = {
          result,
          everRead: req.readableFlowing !== null || req.readableDidRead,
          socketBytes: req.socket.bytesRead,
        }
        const status = result.ok ? 200 : 'refusal' in result ? result.refusal.status : 499
        res.writeHead(status, { connection: 'close' })
        res.end(JSON.stringify(result))
        if (!result.ok) res.once('finish', () => setImmediate(() => req.socket.destroy()))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /** Send headers and `chunks` lazily; stop writing as soon as the reply arrives. Resolves with status and bytes written. */
  function post(
    headers: Record<string, string>,
    chunks: Iterable<Buffer>,
  ): Promise<{ status: number; body: string; written: number }> {
    return new Promise((resolve, reject) => {
      let written = 0
      let done = false
      const req = request({ port, method: 'POST', path: '/', headers }, (res) => {
        done = true
        let body = ''
        res.on('data', (c: Buffer) => {
          body += c.toString()
        })
        res.on('end', () => resolve({ status: res.statusCode!, body, written }))
      })
      req.on('error', (e) => (done ? undefined : reject(e)))
      const it = chunks[Symbol.iterator]()
      const pump = (): void => {
        if (done) return
        const next = it.next()
        if (next.done) {
          req.end()
          return
        }
        written += next.value.length
        if (req.write(next.value)) setImmediate(pump)
        else req.once('drain', pump)
      }
      pump()
    })
  }

  function* endless(size: number, max: number): Generator<Buffer> {
    for (let sent = 0; sent < max; sent += size) yield Buffer.alloc(size, 0x20)
  }

  it('parses a body under the limit', async () => {
    const r = await post({ 'content-type': 'application/json' }, [Buffer.from('{"op":"x","n":[1,2]}')])
    expect(r.status).toBe(200)
    expect(last.result).toEqual({ ok: true, value: { op: 'x', n: [1, 2] } })
  })

  it('refuses a declared Content-Length over the limit before reading a byte', async () => {
    const r = await post(
      { 'content-type': 'application/json', 'content-length': String(LIMIT * 100) },
      endless(16 * 1024, LIMIT * 100),
    )
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, refusal: { code: 'too-large', limit: LIMIT } })
    expect(last.everRead).toBe(false)
    expect(r.written).toBeLessThan(LIMIT * 100)
  })

  it('stops reading an undeclared (chunked) body as soon as it passes the limit', async () => {
    const r = await post(
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      endless(16 * 1024, LIMIT * 1000),
    )
    expect(r.status).toBe(413)
    expect(last.socketBytes).toBeGreaterThan(LIMIT)
    expect(last.socketBytes).toBeLessThan(LIMIT * 4)
    expect(r.written).toBeLessThan(LIMIT * 1000)
  })

  it('refuses malformed JSON and an empty body with 400 bad-json, and accepts a body of exactly the limit', async () => {
    for (const body of ['{"op":', '{op: 1}', "{'a':1}", '\uFEFF{}', '']) {
      const r = await post({ 'content-type': 'application/json' }, [Buffer.from(body)])
      expect(r.status, body).toBe(400)
      expect(JSON.parse(r.body).refusal.code).toBe('bad-json')
    }
    const exact = `"${'x'.repeat(LIMIT - 2)}"`
    const r = await post({ 'content-type': 'application/json' }, [Buffer.from(exact)])
    expect(r.status).toBe(200)
  })
})

describe('a large declared body is gathered as it arrives', () => {
  it('hands the parser the whole body without copying it all at once at its end', async () => {
    // A 27 MB body (a 20 MB PNG card) joined in one copy when its last chunk came held the host's loop over 100 ms.
    const text = JSON.stringify({ op: 'x', files: [{ name: 'big.png', base64: 'QUJD'.repeat(256 * 1024) }] })
    let handed: Buffer | undefined
    const server = createServer((req, res) => {
      const parse = (bytes: Buffer) => {
        handed = bytes
        return Promise.resolve({ ok: true as const, value: JSON.parse(bytes.toString('utf8')) as unknown })
      }
      void readJsonBody(req, 4 * 1024 * 1024, { from: 1024, parse }).then((result) => {
        res.writeHead(result.ok ? 200 : 400, { connection: 'close' })
        res.end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const joins = vi.spyOn(Buffer, 'concat')
    try {
      const port = (server.address() as AddressInfo).port
      const body = Buffer.from(text)
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            port,
            method: 'POST',
            path: '/',
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode!))
          },
        )
        req.on('error', reject)
        // Sent in 16 KB writes, as a browser's upload arrives.
        for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024))
        req.end()
      })
      expect(status).toBe(200)
      expect(handed?.toString('utf8')).toBe(text)
      // Its own memory, which the import worker takes over without a copy.
      expect(handed!.byteOffset).toBe(0)
      expect(handed!.buffer.byteLength).toBe(body.length)
      // No join of the body's chunks on the loop: each was copied in as it came.
      const joined = joins.mock.results.map((r) => (r.value as Buffer).length)
      expect(joined.filter((n) => n > 64 * 1024)).toEqual([])
    } finally {
      joins.mockRestore()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  // Node's HTTP parser copies each chunk into memory of its own; left to a collection, those copies grew the host's
  // malloc heap by the body's size (9 MB for an own file of 95 × 5,200 items), which glibc then kept.
  it("gives back each chunk's memory once it is copied in, unless another listener reads the chunks too", async () => {
    const text = JSON.stringify({ op: 'x', files: [{ name: 'mine.json', text: 'ab'.repeat(256 * 1024) }] })
    const added: Buffer[] = []
    const add = BodyBytes.prototype.add
    const spy = vi.spyOn(BodyBytes.prototype, 'add').mockImplementation(function (this: BodyBytes, chunk, only) {
      added.push(chunk)
      add.call(this, chunk, only)
    })
    let watch = false
    const seen: Buffer[] = []
    let parsed: unknown
    const server = createServer((req, res) => {
      if (watch) req.on('data', (c: Buffer) => seen.push(c))
      void readJsonBody(req, 4 * 1024 * 1024).then((result) => {
        parsed = result.ok ? result.value : undefined
        res.writeHead(result.ok ? 200 : 400, { connection: 'close' })
        res.end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const send = (body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const port = (server.address() as AddressInfo).port
        const headers = { 'content-type': 'application/json', 'content-length': body.length }
        const req = request({ port, method: 'POST', path: '/', headers }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        })
        req.on('error', reject)
        for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024))
        req.end()
      })
    try {
      expect(await send(Buffer.from(text))).toBe(200)
      expect(parsed).toEqual(JSON.parse(text))
      expect(added.length).toBeGreaterThan(1)
      // A chunk given back is detached: no bytes are left in it.
      expect(added.filter((c) => c.byteLength > 0)).toEqual([])
      added.length = 0
      watch = true
      expect(await send(Buffer.from(text))).toBe(200)
      expect(parsed).toEqual(JSON.parse(text))
      // Another reader of the chunks keeps them whole.
      expect(Buffer.concat(seen).toString('utf8')).toBe(text)
      expect(added.filter((c) => c.byteLength === 0)).toEqual([])
    } finally {
      spy.mockRestore()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
