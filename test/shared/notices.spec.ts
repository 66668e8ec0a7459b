/**
 * The one list of notice keys is the list the host really sends: every `notice('…')` in the host half names a
 * listed key (tsc checks that too), and every listed key is sent by some command, so the copy carries no text for a
 * notice that cannot happen.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NOTICE_KEYS } from '../../lib/shared/notices.ts'

function hostSources(dir = 'lib'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return path === join('lib', 'client') ? [] : hostSources(path)
    return e.name.endsWith('.ts') ? [path] : []
  })
}

describe('NOTICES', () => {
  it("lists exactly the keys the host's commands send", () => {
    const sent = new Set(
      hostSources().flatMap((p) => [...readFileSync(p, 'utf8').matchAll(/\bnotice\('([\w.]+)'/g)].map((m) => m[1]!)),
    )
    expect([...sent].sort()).toEqual([...NOTICE_KEYS].sort())
  })
})
