/**
 * Debian's Chromium for the browser specs, started once a run: the global setup starts it as a server
 * (./global-setup.ts) and each browser spec file connects to it, so ~25 files do not each start and stop a browser of
 * their own (~1.5 s of processor time each). A file connected to the server still gets contexts of its own, closed
 * with it. Outside a test run (the benches) a browser is started as before.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserServer, type LaunchOptions } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** The variable through which the global setup hands the server's address to the spec files' processes. */
const SHARED = 'AP_SHARED_CHROMIUM'

/** Headless, with flags that keep Chromium from reaching for the network this machine does not have. */
const OPTIONS: LaunchOptions = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
}

function present(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium), or set CHROMIUM_PATH`,
    )
}

/** The run's browser when the global setup started one, else a browser of this process's own. */
export async function launchBrowser(): Promise<Browser> {
  const shared = process.env[SHARED]
  if (shared !== undefined) return await chromium.connect(shared)
  present()
  return await chromium.launch(OPTIONS)
}

/**
 * Start the run's browser and name it to the processes started after this one; resolves with its stop. A machine
 * without Chromium (a run of the jsdom specs alone) starts nothing, and a browser spec then fails as it would alone.
 */
export async function shareBrowser(): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM)) return async () => {}
  const server: BrowserServer = await chromium.launchServer(OPTIONS)
  process.env[SHARED] = server.wsEndpoint()
  return async () => {
    delete process.env[SHARED]
    await server.close()
  }
}
