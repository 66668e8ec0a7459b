/**
 * What Diagnostics shows of a remote and of git's words about one: the user part of every URL hidden (a token put in a
 * remote's URL is never shown), everything else as it is; one pass, so a long text costs its length.
 */
import { describe, expect, it } from 'vitest'
import { withoutCredentials } from '../../lib/shared/sync.ts'

describe('withoutCredentials', () => {
  it('hides the user part of each URL and leaves the rest', () => {
    expect(withoutCredentials('https://me:ghp_abc@github.com/me/p.git')).toBe('https://•••@github.com/me/p.git')
    expect(withoutCredentials("fatal: unable to access 'https://ghp_abc@host/x/': no; ssh://git@h:22/r.git")).toBe(
      "fatal: unable to access 'https://•••@host/x/': no; ssh://•••@h:22/r.git",
    )
    for (const plain of ['git@github.com:me/p.git', '/srv/git/p.git', 'https://github.com/me/p.git', 'a://@b', '://'])
      expect(withoutCredentials(plain)).toBe(plain)
  })

  it('reads a long text without an @ in one pass', () => {
    const long = `${'https://'.repeat(50_000)}${'a'.repeat(200_000)}`
    expect(withoutCredentials(long)).toBe(long)
  })
})
