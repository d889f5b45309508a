import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * The functions' metrics on the local stack. Handlers write them as on Lambda: one CloudWatch
 * embedded metric format (EMF) JSON line per document on stdout, where CloudWatch would extract
 * them from the log. With a metrics file, the local stack takes those lines out of its stdout and
 * appends them to the file (LEDGER_METRICS_FILE for npm start; the test run keeps one per run).
 */
export const isMetricLine = (line: string): boolean => line.startsWith('{"_aws":');

/** An EMF document as the functions write it (Powertools Metrics). */
export interface MetricDocument {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [member: string]: unknown;
}

/** Diverts the EMF lines written to this process's stdout into `file`; answers a function that stops it. */
export const divertMetricLines = (file: string): (() => void) => {
  const stream = process.stdout;
  const write = stream.write.bind(stream);
  // Opened once: a handler writes its metrics on every invocation.
  let fd: number | undefined = openSync(file, 'a');
  const original = write as unknown as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (!text.includes('{"_aws":')) return original(chunk, ...rest);
    const lines = text.split('\n');
    const metrics = lines.filter(isMetricLine);
    if (fd !== undefined) writeSync(fd, metrics.map((line) => `${line}\n`).join(''));
    const others = lines.filter((line) => line !== '' && !isMetricLine(line));
    if (others.length) return original(`${others.join('\n')}\n`, ...rest);
    const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  };
  return () => {
    stream.write = write;
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
};

/** The EMF documents of a metrics file, in the order they were written. */
export const readMetricDocuments = (text: string): MetricDocument[] =>
  text
    .split('\n')
    .filter(isMetricLine)
    .map((line) => JSON.parse(line) as MetricDocument);
