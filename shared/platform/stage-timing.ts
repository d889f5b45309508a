/**
 * Per-stage timing of a request, for `npm run bench` (infra/tools/bench.ts): the authorizer, the
 * runner's steps and the local gateway report how long each stage took to a sink the bench
 * installs. Without a sink (always, outside the bench) `timed` only runs the work.
 */
export type StageSink = (stage: string, ms: number) => void;

/** On globalThis: the bench, the gateway and the handlers share it even when loaded as separate module copies. */
const slot = Symbol.for('ledger.stageTimingSink');
const holder = globalThis as { [slot]?: StageSink };

export const setStageSink = (sink: StageSink | undefined): void => {
  holder[slot] = sink;
};

export const timed = async <T>(stage: string, work: () => Promise<T>): Promise<T> => {
  const sink = holder[slot];
  if (!sink) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    sink(stage, performance.now() - started);
  }
};
