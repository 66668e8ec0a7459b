/**
 * Set-up of every spec file that runs in a VM context (vitest.config.ts: the node files in the `vmForks` pool, the
 * jsdom files in `vmThreads`): the context lacks the disposal symbols of `using` that the host's packages reach for,
 * which Node 22 makes registered symbols (the same in every context), so they are named here as Node names them.
 */
for (const name of ['dispose', 'asyncDispose'] as const)
  if (Symbol[name] === undefined) Object.defineProperty(Symbol, name, { value: Symbol.for(`nodejs.${name}`) })
