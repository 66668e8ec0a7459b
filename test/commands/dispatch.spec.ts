import { afterEach, describe, expect, it } from 'vitest'
import { COMMAND_HANDLERS } from '../../lib/commands/dispatch.ts'
import { COMMAND_SCHEMAS, isOp } from '../../lib/shared/schema-commands.ts'
import { HOST_ONLY_OPS } from '../../lib/shared/commands.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

const ops = Object.keys(COMMAND_SCHEMAS).sort()

describe('the command table', () => {
  it('gives every op of the union a schema and a handler, and no handler lacks a schema', () => {
    // turn.record is the one op the store runs itself: the turn ledger lives apart from the state.
    expect([...Object.keys(COMMAND_HANDLERS), 'turn.record'].sort()).toEqual(ops)
    for (const op of Object.keys(COMMAND_HANDLERS)) expect(isOp(op), op).toBe(true)
    expect(HOST_ONLY_OPS.every((op) => ops.includes(op))).toBe(true)
  })

  it('names each schema after the op it checks', () => {
    for (const [op, schema] of Object.entries(COMMAND_SCHEMAS)) expect(schema.shape.op.value, op).toBe(op)
  })

  it('takes no op from Object.prototype', () => {
    for (const op of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(isOp(op), op).toBe(false)
  })

  it('refuses an unknown key on every op through the store, naming command.<key>, and changes nothing', async () => {
    ctx = await freshStore()
    for (const op of ops)
      await expectRefused(ctx.store, { op, misspelt: 1 }, { code: 'invalid', field: 'command.misspelt' })
  })

  it('refuses an op that is not in the union, naming op', async () => {
    ctx = await freshStore()
    await expectRefused(ctx.store, { op: 'profile.rename', id: 'general' }, { code: 'invalid', field: 'op' })
    await expectRefused(ctx.store, { op: 'constructor' }, { code: 'invalid', field: 'op' })
    await expectRefused(ctx.store, { id: 'general' }, { code: 'invalid', field: 'op' })
  })
})
