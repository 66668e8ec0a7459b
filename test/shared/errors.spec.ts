import { describe, expect, it } from 'vitest'
import { errorText, withoutDataDir } from '../../lib/shared/errors.ts'

describe('withoutDataDir', () => {
  const forms = ['/home/ann/.dsh/agent-profiles', '/home/ann/.dsh/agent%20profiles']

  it('says the words where the data directory stands, in any form a message gives it, and keeps what follows', () => {
    expect(
      withoutDataDir(
        "EACCES: permission denied, open '/home/ann/.dsh/agent-profiles/profiles.sqlite-wal'",
        forms,
        '数据目录',
      ),
    ).toBe("EACCES: permission denied, open '数据目录/profiles.sqlite-wal'")
    expect(withoutDataDir('cannot open file:///home/ann/.dsh/agent%20profiles', forms, 'the data directory')).toBe(
      'cannot open file://the data directory',
    )
    expect(withoutDataDir("access '/home/ann/.dsh/agent-profiles'", forms, 'X')).toBe("access 'X'")
  })

  it('leaves a longer name that only begins like the directory, and text without it, as they are', () => {
    const text = "open '/home/ann/.dsh/agent-profiles-old/x' and /home/ann/.dsh/agent-profilesX"
    expect(withoutDataDir(text, forms, 'X')).toBe(text)
    expect(withoutDataDir(errorText(new Error('disk is full')), forms, 'X')).toBe('disk is full')
    expect(withoutDataDir('/ a', ['/'], 'X')).toBe('/ a')
  })
})
