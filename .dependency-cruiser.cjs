/**
 * Import rules `npm test` checks before the suite (dependency-cruiser). Type-only imports count: a cycle through
 * types still ties the modules' meaning together, and a browser file that imports a host type still drags the host's
 * module graph into its typecheck.
 */
/**
 * The rooms of lib/ and the one direction imports may take between them, written down once: each stack lists its
 * layers top first, and a room may import only rooms in layers below its own (never a room beside it, never one
 * above), so no two rooms can import each other. The host and the browser half share the two bottom rooms.
 * The entries (lib/index.ts, lib/client/index.ts) sit above everything and are free.
 */
const STACKS = [
  [
    ['http', 'tools', 'offline-model'],
    ['learn/run'],
    ['memory', 'sync'],
    ['prompt'],
    ['turn'],
    ['store'],
    ['commands'],
    ['provenance'],
    ['store/db'],
    ['learn'],
    ['interop'],
    ['validate'],
    ['config', 'log', 'runtime'],
    ['shared'],
    ['state'],
  ],
  [
    ['client/settings', 'client/conversation'],
    ['client/settings/learn'],
    ['client/common'],
    ['client/data', 'client/copy', 'client/styles'],
    ['shared'],
    ['state'],
  ],
]

/** The files directly in a room (a room's subfolder is a room of its own). */
const inRoom = (room) => `^lib/${room}/[^/]+$`

/** One rule per room: what it may import of lib/, from the stacks above. */
function roomRules() {
  const allowed = new Map()
  for (const stack of STACKS) {
    stack.forEach((layer, depth) => {
      const below = stack.slice(depth + 1).flat()
      for (const room of layer) allowed.set(room, [...new Set([...(allowed.get(room) ?? []), room, ...below])])
    })
  }
  const rules = [...allowed].map(([room, rooms]) => ({
    name: `room-${room.replace('/', '-')}`,
    severity: 'error',
    comment: `lib/${room} may import ${rooms.map((r) => `lib/${r}`).join(', ')} only (the stacks in .dependency-cruiser.cjs).`,
    from: { path: inRoom(room) },
    to: { path: '^lib/', pathNot: rooms.map(inRoom) },
  }))
  const known = [...allowed.keys()].map(inRoom).concat(['^lib/index\\.ts$', '^lib/client/index\\.ts$'])
  rules.push({
    name: 'every-file-in-a-room',
    severity: 'error',
    comment: 'A file of lib/ outside every listed room has no place in the stacks: put it in a room, or add the room.',
    from: { path: '^lib/', pathNot: known },
    to: {},
  })
  return rules
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form a tree; a cycle means two modules share a job that belongs in a third.',
      from: {},
      to: { circular: true },
    },
    ...roomRules(),
    {
      name: 'page-code-has-no-node-modules',
      severity: 'error',
      comment: 'The browser half and what it shares with the host run in the page: no node: module there.',
      from: { path: '^lib/(client|shared|state)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'lib-never-imports-test',
      severity: 'error',
      comment: 'Production code must not depend on tests or their helpers.',
      from: { path: '^lib/' },
      to: { path: '^test/' },
    },
    {
      name: 'dispatcher-only-from-store',
      severity: 'error',
      comment:
        'Every command goes through the store (validation, write, change event); only the store calls the dispatcher.',
      from: { path: '^lib/', pathNot: '^lib/store/' },
      to: { path: '^lib/commands/dispatch\\.ts$' },
    },
    {
      name: 'only-store-touches-files',
      severity: 'error',
      comment:
        'The data files are read and written by lib/store/ alone; lib/sync/ touches only its own <data dir>/sync/ (the clone, its lock, its settings).',
      from: { path: '^lib/', pathNot: '^lib/(store|sync)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'sqlite-through-one-module',
      severity: 'error',
      comment:
        'node:sqlite is loaded by lib/store/db/sqlite.ts alone, which drops its one experimental-feature warning; a direct import prints it on every start.',
      from: { path: '^lib/', pathNot: '^lib/store/db/sqlite\\.ts$' },
      // dependency-cruiser does not know node:sqlite as a builtin yet, so the module is matched by its name alone.
      to: { path: '^node:sqlite$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
