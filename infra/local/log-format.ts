/**
 * Readable logs for `npm start`: one line per request (method, path, status, ms, requestId) from
 * the local gateway, and the handlers' structured JSON records and metrics (Powertools; JSON and
 * EMF stay the formats on Lambda) rendered as one line each. The handlers' own "request completed" records are left
 * out, the gateway's line says the same.
 */
export interface AccessEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
}

const time = (date = new Date()) => date.toISOString().slice(11, 23);

export const accessLine = (entry: AccessEntry, at = new Date()): string =>
  `${time(at)} ${entry.method.padEnd(6)} ${entry.path} ${entry.status} ${entry.ms} ms ${entry.requestId}`;

/** A Powertools JSON record as one line; undefined to drop it; the line itself when it is no record. */
export const readableRecord = (line: string): string | undefined => {
  if (line.startsWith('{"_aws":')) return readableMetrics(line);
  if (!line.startsWith('{"level":')) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (record.message === 'request completed') return undefined;
  const { level, message, timestamp, requestId, error } = record as { level: string; message: string; timestamp?: string; requestId?: string; error?: { name?: string; message?: string; stack?: string } };
  const at = timestamp ? timestamp.slice(11, 23) : time();
  const failure = error ? ` ${error.name ?? 'Error'}: ${error.message ?? ''}${error.stack ? `\n${error.stack.split('\n').slice(1, 6).join('\n')}` : ''}` : '';
  return `${at} ${String(level).padEnd(6)} ${message}${requestId ? ` ${requestId}` : ''}${failure}`;
};

/** An EMF line (the functions' metrics) as one line: `METRIC Name=value dimension=value …`. */
const readableMetrics = (line: string): string => {
  let document: { _aws: { Timestamp: number; CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] }; [member: string]: unknown };
  try {
    document = JSON.parse(line) as typeof document;
  } catch {
    return line;
  }
  const [directive] = document._aws.CloudWatchMetrics;
  const metrics = (directive?.Metrics ?? []).map(({ Name }) => `${Name}=${String(document[Name])}`);
  const dimensions = (directive?.Dimensions[0] ?? []).filter((name) => name !== 'service').map((name) => `${name}=${String(document[name])}`);
  return `${time(new Date(document._aws.Timestamp))} METRIC ${[...metrics, ...dimensions].join(' ')}`;
};

/** Renders the JSON records written to stdout and stderr of this process (npm start only). */
export const installReadableLogs = (): void => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!text.includes('{"level":') && !text.includes('{"_aws":')) return write(chunk, ...rest);
      const lines = text.split('\n').map((line) => (line === '' ? '' : readableRecord(line))).filter((line): line is string => line !== undefined);
      const out = lines.join('\n');
      return out.trim() === '' ? true : write(out.endsWith('\n') ? out : `${out}\n`, ...rest);
    });
  }
};
