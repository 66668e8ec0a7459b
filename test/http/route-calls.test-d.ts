/**
 * A route's handler is handed its input typed by its own entry of the wire table (lib/shared/wire-table.ts, through
 * `Call<K>` in lib/http/route-kit.ts), which the router parses for any key without a cast (lib/http/routes.ts). A
 * type-level spec: the typecheck gate compiles it, and every `@ts-expect-error` fails that gate the day the line under
 * it compiles. Nothing here runs.
 */
import { expectTypeOf } from 'vitest'
import type { Call, Handler } from '../../lib/http/route-kit.ts'
import type { BrowserCommand } from '../../lib/shared/commands.ts'
import { jsonOf } from '../../lib/http/route-kit.ts'
import { TINY_CAPS } from '../../lib/http/caps.ts'

/** Each route's query and body are its schemas' output; a route that takes none is handed none. */
expectTypeOf<Call<'command'>['body']>().toEqualTypeOf<BrowserCommand>()
expectTypeOf<Call<'learn.export.send'>['body']>().toExtend<Uint8Array>()
expectTypeOf<Call<'memory.history'>['query']['by']>().toEqualTypeOf<string | undefined>()
expectTypeOf<Call<'state'>['query']>().toEqualTypeOf<undefined>()
expectTypeOf<Call<'state'>['body']>().toEqualTypeOf<undefined>()

/** A handler reads what its entry's schemas give, and nothing else. */
export const handlers: Handler<'libraries.remove'>[] = [
  { caps: TINY_CAPS, run: (_deps, call) => jsonOf(call.body.id) },
  // @ts-expect-error a field the body's schema does not give
  { caps: TINY_CAPS, run: (_deps, call) => jsonOf(call.body.remote) },
  // @ts-expect-error a POST route with a JSON body names the caps it is read within
  { run: (_deps, call) => jsonOf(call.body.id) },
]
