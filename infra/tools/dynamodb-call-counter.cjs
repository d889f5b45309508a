'use strict';
/**
 * Counts the DynamoDB calls a Node.js process makes, by operation, table and key prefix (the part
 * of the partition key before its first `#`), and writes them to $DYNAMODB_CALLS_DIR/<pid>.json
 * when the process exits. `npm run bench:suite -- --dynamodb-calls` loads it into every Node.js
 * process of the run (NODE_OPTIONS=--require); without that variable it does nothing. Plain
 * JavaScript: it loads before any TypeScript loader. It watches http.request, which the AWS SDK's
 * Node.js handler calls for every request, and reads the request body only to name the call.
 */
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

/** The part of a key's string value before its first `#` (`COMPANY#42` -> `COMPANY`). */
const prefixOf = (value) => (value && typeof value.S === 'string' ? value.S.split('#')[0] : '');

/** The partition key's prefix a query names: the value of the first placeholder in its key condition. */
const queriedPrefix = (request) => {
  const placeholder = /:[\w]+/.exec(request.KeyConditionExpression ?? '')?.[0];
  return placeholder ? prefixOf(request.ExpressionAttributeValues?.[placeholder]) : '';
};

/** The item keys a transaction or batch touches, as their sorted distinct prefixes. */
const prefixesOf = (keys) => [...new Set(keys.map(prefixOf))].sort().join(',');

/**
 * One call's name: `Operation table prefix` (`GetItem ledger-local COMPANY`); a transaction or batch
 * names its item count and the prefixes of its items, a query its index.
 */
const describeCall = (operation, body) => {
  let request;
  try {
    request = JSON.parse(body);
  } catch {
    return `${operation} (unreadable body)`;
  }
  if (request.TransactItems) {
    const items = request.TransactItems.map((item) => Object.values(item)[0] ?? {});
    return `${operation} ${items.length} items ${prefixesOf(items.map((item) => (item.Key ?? item.Item ?? {}).PK))}`;
  }
  if (request.RequestItems) {
    const keys = Object.values(request.RequestItems).flatMap((entry) =>
      Array.isArray(entry) ? entry.map((write) => (write.PutRequest?.Item ?? write.DeleteRequest?.Key ?? {}).PK) : (entry.Keys ?? []).map((key) => key.PK),
    );
    return `${operation} ${Object.keys(request.RequestItems).join(',')} ${keys.length} items ${prefixesOf(keys)}`;
  }
  const table = request.TableName ?? '';
  if (request.Key) return `${operation} ${table} ${prefixOf(request.Key.PK)}`;
  if (request.Item) return `${operation} ${table} ${prefixOf(request.Item.PK)}`;
  if (request.KeyConditionExpression) return `${operation} ${table}${request.IndexName ? ` ${request.IndexName}` : ''} ${queriedPrefix(request)}`;
  return `${operation} ${table}`.trim();
};

const install = (directory) => {
  const counts = new Map();
  const request = http.request;
  http.request = function countedRequest(...args) {
    const outgoing = request.apply(this, args);
    const options = typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : (args[1] ?? {});
    const target = String(options.headers?.['x-amz-target'] ?? options.headers?.['X-Amz-Target'] ?? '');
    if (!target.startsWith('DynamoDB')) return outgoing;
    const operation = target.split('.')[1] ?? target;
    const chunks = [];
    const { write, end } = outgoing;
    outgoing.write = function countedWrite(chunk, ...rest) {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      return write.call(this, chunk, ...rest);
    };
    outgoing.end = function countedEnd(chunk, ...rest) {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      const name = describeCall(operation, Buffer.concat(chunks).toString('utf8'));
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return end.call(this, chunk, ...rest);
    };
    return outgoing;
  };
  process.on('exit', () => {
    if (counts.size === 0) return;
    try {
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(path.join(directory, `${process.pid}.json`), JSON.stringify({ command: process.argv.slice(1, 3).join(' '), calls: Object.fromEntries(counts) }));
    } catch {
      // A count that cannot be written must not change how the process ends.
    }
  });
};

if (process.env.DYNAMODB_CALLS_DIR) install(process.env.DYNAMODB_CALLS_DIR);

module.exports = { describeCall };
