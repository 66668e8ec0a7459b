/**
 * The memory search's query as the wire table's schema reads it at the door (lib/shared/wire-inputs.ts): what the
 * list is handed (numbers, flags, a list of sources, a trimmed query) and how each bad value is refused, naming its
 * field and, for a count or a length, its limit.
 */
import { describe, expect, it } from 'vitest'
import { MemorySearchQuery, queryOf } from '../../lib/shared/wire-inputs.ts'
import { SEARCH_PAGE, SEARCH_QUERY_CHARS } from '../../lib/shared/wire-replies.ts'
import { parse } from '../../lib/validate/core.ts'
import { StoreError } from '../../lib/shared/errors.ts'

/** The query of `search` (a URL's search part) as the route's door reads it. */
const read = (search: string) => parse(MemorySearchQuery, queryOf(new URLSearchParams(search)), '', '')

/** The refusal of `search`: its field and limit. */
function refusal(search: string): { field?: string; limit?: number; message: string } {
  try {
    read(search)
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    return { field: error.field, limit: error.limit, message: error.message }
  }
  throw new Error(`${search} was not refused`)
}

describe('the memory search query, read at the door', () => {
  it('hands the list numbers, flags, a list of sources and the query trimmed; absent values take their defaults', () => {
    expect(read('layer=profile&owner=p1&q=%20杭州%20&source=user&source=tool&archived=1&offset=50&limit=200')).toEqual({
      layer: 'profile',
      owner: 'p1',
      q: '杭州',
      source: ['user', 'tool'],
      archived: true,
      pending: undefined,
      offset: 50,
      limit: 200,
    })
    expect(read('layer=user')).toMatchObject({ q: '', source: [], offset: 0, limit: SEARCH_PAGE.default })
    expect(read('layer=user&pending=0&limit=')).toMatchObject({ pending: false, limit: SEARCH_PAGE.default })
  })

  it('refuses each bad value naming its field, and the limit a count or a length broke', () => {
    expect(refusal('layer=nope')).toMatchObject({ field: 'layer' })
    expect(refusal('owner=p1')).toMatchObject({ field: 'layer' })
    expect(refusal(`layer=user&q=${'x'.repeat(SEARCH_QUERY_CHARS + 1)}`)).toMatchObject({
      field: 'q',
      limit: SEARCH_QUERY_CHARS,
      message: `q: is ${SEARCH_QUERY_CHARS + 1} characters, over the limit of ${SEARCH_QUERY_CHARS}`,
    })
    expect(refusal('layer=user&source=user&source=nope')).toMatchObject({ field: 'source' })
    expect(refusal('layer=user&archived=2')).toMatchObject({ field: 'archived' })
    expect(refusal('layer=user&offset=-1')).toMatchObject({ field: 'offset', limit: 1_000_000 })
    expect(refusal(`layer=user&limit=${SEARCH_PAGE.max + 1}`)).toMatchObject({
      field: 'limit',
      limit: SEARCH_PAGE.max,
      message: `limit: must be an integer from 1 to ${SEARCH_PAGE.max}`,
    })
    // The first broken rule is the one named, in the order the list always checked them.
    expect(refusal('layer=nope&limit=0')).toMatchObject({ field: 'layer' })
  })
})
