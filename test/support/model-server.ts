/** The tests' handle on the project's offline model (lib/offline-model), which they script and whose requests they read. */
export * from '../../lib/offline-model/server.ts'
