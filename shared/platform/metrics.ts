import { AsyncLocalStorage } from 'node:async_hooks';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger';
import { metricCatalogue, metricNamespace, metricServiceName, type MetricDimensions, type MetricKey } from './metric-catalogue';

/**
 * The service's metrics (CloudWatch embedded metric format, through Powertools Metrics), named
 * only through the catalogue. EMF gives one dimension set to every metric of a document, and the
 * catalogue's metrics carry different dimensions, so an invocation keeps one Powertools document
 * per dimension set (and metadata) and publishes them all once, when it ends.
 */

/** Searchable in the log but no dimension (request, import or delivery ids): high cardinality is fine here. */
export type MetricMetadata = Record<string, string>;

interface Invocation {
  documents: Map<string, Metrics>;
  metadata: MetricMetadata;
}

/** Per invocation: the local stack runs many at once in one process, each must publish its own. */
const invocations = new AsyncLocalStorage<Invocation>();

const newDocument = (dimensions: Record<string, string>, metadata: MetricMetadata): Metrics => {
  const document = new Metrics({ namespace: metricNamespace, serviceName: metricServiceName, defaultDimensions: dimensions, logger });
  for (const [key, value] of Object.entries(metadata)) document.addMetadata(key, value);
  return document;
};

/**
 * Adds `value` to a catalogue metric with its dimensions (exactly the catalogue's). Within an
 * invocation (withInvocationMetrics) it is published when the invocation ends; outside one (tools,
 * seeding) at once.
 */
export const countMetric = <K extends MetricKey>(key: K, dimensions: MetricDimensions<K>, value = 1, metadata: MetricMetadata = {}): void => {
  const { name, unit, dimensions: names } = metricCatalogue[key];
  const values: Record<string, string> = Object.fromEntries(names.map((dimension) => [dimension, (dimensions as Record<string, string>)[dimension]!]));
  const invocation = invocations.getStore();
  if (!invocation) {
    newDocument(values, metadata).addMetric(name, MetricUnit[unit], value).publishStoredMetrics();
    return;
  }
  const allMetadata = { ...invocation.metadata, ...metadata };
  const id = JSON.stringify([values, allMetadata]);
  let document = invocation.documents.get(id);
  if (!document) invocation.documents.set(id, (document = newDocument(values, allMetadata)));
  document.addMetric(name, MetricUnit[unit], value);
};

/** Runs one invocation; its metrics are published once, as one EMF line per dimension set, when it ends (also when it throws). */
export const withInvocationMetrics = async <T>(metadata: MetricMetadata, invoke: () => Promise<T>): Promise<T> => {
  const invocation: Invocation = { documents: new Map(), metadata };
  try {
    return await invocations.run(invocation, invoke);
  } finally {
    for (const document of invocation.documents.values()) if (document.hasStoredMetrics()) document.publishStoredMetrics();
  }
};

/** A Lambda handler whose metrics are published once per invocation (`metadata` from its event). */
export const publishingMetrics =
  <E, C, R>(handler: (event: E, context: C) => Promise<R>, metadata: (event: E) => MetricMetadata = () => ({})) =>
  (event: E, context: C): Promise<R> =>
    withInvocationMetrics(metadata(event), () => handler(event, context));

/** `2xx` … `5xx`: the Requests metric's status class. */
export const statusClassOf = (statusCode: number): string => `${Math.floor(statusCode / 100)}xx`;
