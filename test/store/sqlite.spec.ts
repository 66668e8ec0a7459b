// lib/store/db/sqlite.ts: node:sqlite loads without Node's "SQLite is an experimental feature" line on stderr, while
// every other warning still prints. Run in a child Node, since a process prints that warning only once.
import { execFile } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const MODULE = pathToFileURL(join(import.meta.dirname, '../../lib/store/db/sqlite.ts')).href

/** Run `code` as an ES module in a fresh Node; its stderr. */
function stderrOf(code: string): Promise<{ stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--experimental-strip-types', '--input-type=module', '-e', code],
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`))
        else resolve({ stdout, stderr })
      },
    )
  })
}

describe('node:sqlite for the store', () => {
  it('loads without the SQLite warning, opens a database, and lets every other warning through', async () => {
    const { stdout, stderr } = await stderrOf(`
      const { DatabaseSync } = await import(${JSON.stringify(MODULE)})
      const db = new DatabaseSync(':memory:')
      console.log(db.prepare('select 6 * 7 as n').get().n)
      process.emitWarning('another feature is experimental', 'ExperimentalWarning')
      process.emitWarning('a deprecation of someone else')
    `)
    expect(stdout.trim()).toBe('42')
    expect(stderr).not.toContain('SQLite is an experimental feature')
    expect(stderr).toContain('ExperimentalWarning: another feature is experimental')
    expect(stderr).toContain('a deprecation of someone else')
  })

  it('(control) a plain import of node:sqlite prints the warning this module keeps away', async () => {
    const { stderr } = await stderrOf(`await import('node:sqlite')`)
    expect(stderr).toContain('SQLite is an experimental feature')
  })
})
