/**
 * Import rules `npm test` checks before the suite (dependency-cruiser). Type-only imports count: a cycle through
 * types still ties the modules' meaning together, and a browser file that imports a host type still drags the host's
 * module graph into its typecheck.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form a tree; a cycle means two modules share a job that belongs in a third.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'client-imports-client-and-shared-only',
      severity: 'error',
      comment: 'The browser half runs in the page: it may use lib/client, lib/shared, lib/state and npm packages, never host code or node: modules.',
      from: { path: '^lib/client/' },
      to: { pathNot: ['^lib/client/', '^lib/shared/', '^lib/state/', '^node_modules/'] },
    },
    {
      name: 'shared-imports-shared-only',
      severity: 'error',
      comment: 'lib/shared is what both halves use: no node: module and nothing from either half; it may read the state model below it.',
      from: { path: '^lib/shared/' },
      to: { pathNot: ['^lib/shared/', '^lib/state/'] },
    },
    {
      name: 'state-imports-state-and-shared-only',
      severity: 'error',
      comment: 'lib/state is the data model every room agrees on, the bottom of the house: it imports no other room (npm packages only).',
      from: { path: '^lib/state/' },
      to: { pathNot: ['^lib/state/', '^node_modules/'] },
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
      comment: 'Every command goes through the store (validation, write, change event); only the store calls the dispatcher.',
      from: { path: '^lib/', pathNot: '^lib/store/' },
      to: { path: '^lib/commands/dispatch\\.ts$' },
    },
    {
      name: 'only-store-touches-files',
      severity: 'error',
      comment: 'The data files are read and written by lib/store/ alone.',
      from: { path: '^lib/', pathNot: '^lib/store/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'sqlite-through-one-module',
      severity: 'error',
      comment: 'node:sqlite is loaded by lib/store/sqlite.ts alone, which drops its one experimental-feature warning; a direct import prints it on every start.',
      from: { path: '^lib/', pathNot: '^lib/store/sqlite\\.ts$' },
      // dependency-cruiser does not know node:sqlite as a builtin yet, so the module is matched by its name alone.
      to: { path: '^node:sqlite$' },
    },
    {
      name: 'interop-is-format-code',
      severity: 'error',
      comment: 'Card, PNG and Markdown code converts formats; it never reaches the commands, the store, the host or the routes.',
      from: { path: '^lib/interop/' },
      to: { path: '^lib/(commands|store|http|prompt|memory|tools)/' },
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
