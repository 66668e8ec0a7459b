/**
 * The statements of the reads a render and a head make of a profile's rows without reading them all (read-rows.ts):
 * the pinned memory items, the memory newest first (stepped only as far as the render's budget goes), and the tally
 * from the rows' text for a database whose columns are not filled and counted yet (item-kinds.ts; that one reads
 * every row of the profile, as the only way to know before; item-counts.ts has the counts after). It owns the SQL
 * alone, never runs it.
 */

/**
 * An owner's memory items of one kind (0: unpinned, KIND.pinned: pinned; kind-bits.ts), newest first as the render
 * ranks them (time, then position), through the index memory_items_newest (parameters: the owner, the kind): id,
 * pos, data. Its reader steps it only as far as the budget goes. The order is also what makes SQLite take the index:
 * without it, a profile's rows read through the primary key looked as cheap, and that reads every one of them.
 */
export const NEWEST_SQL = `SELECT id, pos, data FROM memory_items WHERE profile_id = ? AND kind = ?
  ORDER BY item_at DESC, pos DESC`

/**
 * How many items an owner has, archived and pending, from the rows' text (parameter: the owner): items, archived,
 * pending. The store writes each item with JSON.stringify, where a quote inside a text is always escaped, so
 * `"archived":true` can only be the item's own key.
 */
export const TALLY_BY_TEXT = `SELECT count(*) AS items, coalesce(sum(instr(data, '"archived":true') > 0), 0) AS archived,
    coalesce(sum(instr(data, '"pending":true') > 0), 0) AS pending FROM memory_items WHERE profile_id = ?`
