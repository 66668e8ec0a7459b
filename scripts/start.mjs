#!/usr/bin/env node
/**
 * `npm start`: builds the plugin, installs it into a Harness home inside this checkout (`.dsh-home/`, ignored by git)
 * and starts the real dsh web UI on 127.0.0.1. Without DEEPSEEK_API_KEY it first starts the project's offline
 * OpenAI-compatible demo model (lib/offline-model/) and points dsh at it, so the UI can be tried end to end with no key.
 * Extra arguments go to `dsh web` (e.g. `npm start -- --port 3090 --no-open`).
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from './build.mjs'
import { installPlugin } from './install-plugin.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const home = process.env.AP_DSH_HOME ?? join(root, '.dsh-home')
const args = process.argv.slice(2)

await build({ minify: true })
installPlugin({ home, profile: 'web' })

/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, DSH_HOME: home }
/** @type {{ url: string, close: () => Promise<void> } | undefined} */
let model
if (!process.env.DEEPSEEK_API_KEY) {
  const { startModelServer } = await import('../lib/offline-model/server.ts')
  model = await startModelServer({ port: Number(process.env.AP_OFFLINE_MODEL_PORT ?? 0) })
  env.DEEPSEEK_API_KEY = 'offline'
  env.DEEPSEEK_BASE_URL = model.url
  console.log(
    [
      '',
      '  ┌──────────────────────────────────────────────────────────────────────┐',
      '  │ OFFLINE MODEL: DEEPSEEK_API_KEY is not set, so dsh talks to the      │',
      "  │ project's offline demo model. It is not an AI: chat replies only say │",
      '  │ it is offline; "请记住… / remember …" saves your words to memory.    │',
      '  │ Set DEEPSEEK_API_KEY to use the real DeepSeek model.                 │',
      '  └──────────────────────────────────────────────────────────────────────┘',
      `  offline model: ${model.url}`,
      '',
    ].join('\n'),
  )
}
console.log(`  Harness home: ${home}`)

const hasHost = args.includes('--host')
const child = spawn(
  process.execPath,
  [join(root, 'node_modules/@deepseek-ai/dsh/lib/bin.js'), 'web', ...(hasHost ? [] : ['--host', '127.0.0.1']), ...args],
  { stdio: 'inherit', env },
)
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => child.kill(signal))
child.on('close', async (code) => {
  await model?.close()
  process.exit(code ?? 0)
})
