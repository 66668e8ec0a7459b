/**
 * The one logger type every part writes to, and the one style of its lines. It owns only the type: the host's named
 * logger (`ctx.logger('agent-profiles')`, made in index.ts) fits it, and so does the browser's `console`; it never
 * formats or sends a line itself.
 *
 * Every line starts `agent-profiles: `, optionally followed by the area and a colon (`agent-profiles: routes: …`).
 * The host's own packages begin their lines the same way (`settings-file: reload failed…`) although each logs through
 * a named logger: the name is part of the text, so it survives every sink that shows the text alone.
 */

/** Where a part logs. A part that only warns takes `Pick<Log, 'warn'>`. */
export interface Log {
  warn(msg: string): void
  error(msg: string): void
}
