/**
 * What every random test draws from, and the one variable that seeds it. Every random test is a fast-check property
 * run with {@link fcParams}: fast-check prints the seed (and the path of the shrunk case) of a failure, and
 * `FC_SEED=<seed> FC_PATH=<path>` replays exactly that case (`FC_SEED` alone replays the run from its start); unset,
 * each run takes a fresh seed. Generators whose choices depend on the state as they go (a store's profile ids, the
 * answers of a server) draw through a {@link Rng}: inside a property from fast-check's `fc.gen()`, so that a failing
 * run shrinks too; in a child process from a seed the property handed it.
 */
import fc from 'fast-check'

/** Reads an optional environment variable that must hold an integer. */
function integerFromEnv(name: string): number | undefined {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return undefined
  const value = Number(raw)
  if (!Number.isSafeInteger(value))
    throw new Error(`${name} must be an integer (the seed fast-check printed), got ${JSON.stringify(raw)}`)
  return value
}

/** The seed this run replays, when `FC_SEED` is set. */
const SEED = integerFromEnv('FC_SEED')
/** The shrunk case to replay within that seed's run, when `FC_PATH` is set too. */
const PATH = SEED === undefined ? undefined : process.env.FC_PATH

/** How a property runs beyond its seed. */
export interface FuzzOptions {
  /**
   * No shrinking, for a property over state that outlives one run (a server shared by the run's requests, a child
   * process killed at a moment): replaying it would meet a state the first failure already changed.
   */
  endOnFailure?: boolean
  /** Stop shrinking after this long, so that the failure and its seed are printed before the test's own timeout. */
  timeLimitMs?: number
}

/** fast-check parameters for one property of `numRuns` runs, seeded by `FC_SEED` when set. */
export function fcParams<T>(numRuns: number, options: FuzzOptions = {}): fc.Parameters<T> {
  return {
    numRuns,
    ...(SEED === undefined ? {} : { seed: SEED }),
    ...(PATH === undefined || PATH === '' ? {} : { path: PATH }),
    ...(options.endOnFailure === true ? { endOnFailure: true } : {}),
    ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
  }
}

/** Random choices for a generator that decides as it goes. */
export interface Rng {
  /** A number in [0, 1). */
  next(): number
  /** An integer in [0, n). */
  int(n: number): number
  /** One of `xs` (not empty). */
  pick<T>(xs: readonly T[]): T
  /** True with probability `p`. */
  chance(p: number): boolean
}

/** 2³²: the draws below are 32-bit integers, scaled into [0, 1). */
const RANGE = 2 ** 32

/**
 * A uniform 32-bit draw. Unbiased: fast-check leans plain integers toward small and extreme values, which would make
 * every `pick` the first choice far more often than the generators' weights say.
 */
const uniform32 = (): fc.Arbitrary<number> => fc.noBias(fc.integer({ min: 0, max: RANGE - 1 }))

/** A {@link Rng} over a source of 32-bit draws. */
function rngOver(draw: () => number): Rng {
  const next = (): number => draw() / RANGE
  const int = (n: number): number => Math.floor(next() * n)
  return { next, int, pick: (xs) => xs[int(xs.length)]!, chance: (p) => next() < p }
}

/** Choices drawn from a property's `fc.gen()` value: fast-check records them, so a failing run shrinks. */
export function genRng(g: fc.GeneratorValue): Rng {
  return rngOver(() => g(uniform32))
}

/** Choices from `seed` alone, for a process outside any property (a child the property started with that seed). */
export function seededRng(seed: number): Rng {
  const [stream] = fc.sample(fc.infiniteStream(uniform32()), { seed, numRuns: 1 })
  return rngOver(() => stream!.next().value)
}
