/**
 * How long a test waits for work the stack's queues carry (imports, post-fetch runs, deliveries):
 * one worker per queue serves every test file, so a wait must outlast whatever other files put
 * ahead of it on a loaded machine. vitest's testTimeout (vitest.config.ts) is longer still.
 */
export const queueWaitMs = 120_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until check() holds (polling every 100 ms), or fails after timeoutMs. */
export const eventually = async <T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = queueWaitMs, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(100);
  }
};
