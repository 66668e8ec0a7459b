/**
 * An import worker for test/http/import-pool.spec.ts whose thread takes two seconds to load (a busy machine) before it
 * becomes the real worker (lib/http/import-worker.ts). It asserts nothing.
 */
const until = Date.now() + 2_000
while (Date.now() < until);
await import('../../lib/http/import-worker.ts')
