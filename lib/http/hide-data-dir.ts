/**
 * Keeps the data directory's absolute path out of what the routes answer. Another local process (or a page the user
 * shares in a screenshot) learns the user's name and folder layout from it, and the page has no use for it: a file
 * there is named by its place in the data directory, the directory itself by those words. Owns that rewrite of a
 * reply's JSON text only; it never reads the disk.
 */
import { dirname, isAbsolute, sep } from 'node:path'

/** `json` with every `<data dir>/x` written `x` and the bare directory written "the data directory". */
export function hideDataDir(json: string, dataFile: string): string {
  const parent = dirname(dataFile)
  // A relative or root directory is no one's private path, and rewriting `.` or `/` would mangle every other field.
  if (!isAbsolute(parent) || dirname(parent) === parent) return json
  const dir = JSON.stringify(parent).slice(1, -1)
  const inside = dir + JSON.stringify(sep).slice(1, -1)
  return json.split(inside).join('').split(dir).join('the data directory')
}
