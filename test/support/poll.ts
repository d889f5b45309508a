/**
 * How long a test waits for work the stack's queues carry (imports, post-fetch runs, deliveries):
 * one worker per queue serves every test file, so a wait must outlast whatever other files put
 * ahead of it on a loaded machine. vitest's testTimeout (vitest.config.ts) is longer still.
 */
export const queueWaitMs = 120_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checks at once, then after 150 ms, 1.5 times longer each time up to 500 ms: work a queue carries
 * takes a few hundred milliseconds to seconds in the run, so earlier checks would only add requests
 * (each one the stack's CPU), and a long wait adds little load of its own.
 */
const firstPollMs = 150;
const maxPollMs = 500;

/** Waits until check() holds (at once, then after 150 ms, 1.5 times longer each time up to 500 ms), or fails after timeoutMs. */
export const eventually = async <T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = queueWaitMs, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (let pause = firstPollMs; ; pause = Math.min(maxPollMs, pause * 1.5)) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
  }
};
