/**
 * The statements of the reads a render and a head make of a profile's rows without reading them all (read-rows.ts):
 * the core (pinned items, the newest memory by position), how many are memory and whether an older one is newer in
 * time, and the tally by kind. Two forms of each: through the columns `kind` and `item_at` and their index once
 * every row is filled (item-kinds.ts; a look-up of the core rows, and a count of index entries, never an item's
 * text), and from the rows' text before (every row of the profile read). Both give the same answer. It owns the
 * SQL alone, never runs it.
 */
import { KIND } from './item-kinds.ts'

/** The statements, with their parameters: (owner, owner, keep), (pos, owner), (owner). */
export interface CoreSql {
  /** The pinned memory items and the newest `keep` unpinned ones, in position order: id, pos, data. */
  core: string
  /** How many items are memory, and the newest time among the unpinned ones before a position: total, newest. */
  older: string
  /** How many items there are, archived and pending: items, archived, pending. */
  tally: string
}

/** From the rows' text, as the store writes it (JSON.stringify: `"pinned":true` can only be the item's own key). */
const memoryText = `profile_id = ? AND instr(data, '"pending":true') = 0 AND instr(data, '"archived":true') = 0`

const BY_TEXT: CoreSql = {
  core: `SELECT id, pos, data FROM memory_items WHERE ${memoryText} AND instr(data, '"pinned":true') > 0
    UNION ALL SELECT * FROM (SELECT id, pos, data FROM memory_items WHERE ${memoryText}
      AND instr(data, '"pinned":true') = 0 ORDER BY pos DESC LIMIT ?) ORDER BY pos`,
  older: `SELECT count(*) AS total, max(CASE WHEN pos < ? AND instr(data, '"pinned":true') = 0
    THEN coalesce(json_extract(data, '$.at'), 0) END) AS newest FROM memory_items WHERE ${memoryText}`,
  tally: `SELECT count(*) AS items, coalesce(sum(instr(data, '"archived":true') > 0), 0) AS archived,
    coalesce(sum(instr(data, '"pending":true') > 0), 0) AS pending FROM memory_items WHERE profile_id = ?`,
}

/** Through the columns (item-kinds.ts's KIND: 0 is an unpinned memory item, KIND.pinned a pinned one). */
const BY_KIND: CoreSql = {
  core: `SELECT id, pos, data FROM memory_items WHERE profile_id = ? AND kind = ${KIND.pinned}
    UNION ALL SELECT * FROM (SELECT id, pos, data FROM memory_items WHERE profile_id = ? AND kind = 0
      ORDER BY pos DESC LIMIT ?) ORDER BY pos`,
  older: `SELECT count(*) AS total, max(CASE WHEN kind = 0 AND pos < ? THEN item_at END) AS newest
    FROM memory_items WHERE profile_id = ? AND kind IN (0, ${KIND.pinned})`,
  tally: `SELECT count(*) AS items, coalesce(sum((kind & ${KIND.archived}) > 0), 0) AS archived,
    coalesce(sum((kind & ${KIND.pending}) > 0), 0) AS pending FROM memory_items WHERE profile_id = ?`,
}

/** The statements for a database whose columns are filled (`ready`) or not yet. */
export function coreSql(ready: boolean): CoreSql {
  return ready ? BY_KIND : BY_TEXT
}
