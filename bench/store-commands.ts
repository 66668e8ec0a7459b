/**
 * The commands the store benchmarks send, as a user's edits do: a conversation's note and pin, and a profile's text
 * field, alternately, among 100 profiles (`p0`…`p99`) and `sessions` conversation settings (`s0`…; with none, 500
 * new conversations in turn).
 */
export function userEdits(sessions: number): () => unknown {
  let n = 0
  return () => {
    n++
    if (n % 2 === 0) return { op: 'profile.update', id: `p${n % 100}`, patch: { rules: `第 ${n} 次修改：实事求是。` } }
    const id = sessions === 0 ? `new-${n % 500}` : `s${Math.floor(Math.random() * sessions)}`
    return {
      op: 'session.set',
      sessionId: id,
      patch: { note: `备注 ${n}`, profileId: n % 4 === 1 ? `p${n % 100}` : null },
    }
  }
}
