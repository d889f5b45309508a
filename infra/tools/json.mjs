#!/usr/bin/env node
// `... | node infra/tools/json.mjs [PATH]`: pretty-prints JSON from stdin without losing precision
// (lossless-json: 1250.00 stays 1250.00, large numbers stay exact) and ends with a newline.
// With PATH (.id, .data.0.lineId, .accounts): prints that value; a string is printed bare (for shell variables).
import { createRequire } from 'node:module';

const { parse, stringify } = createRequire(import.meta.url)('lossless-json');

let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  let value;
  try {
    value = parse(text);
  } catch {
    process.stderr.write(`not JSON: ${text.slice(0, 500)}\n`);
    process.exit(1);
  }
  const path = process.argv[2];
  if (path) {
    for (const key of path.replace(/^\./, '').split('.').filter(Boolean)) value = value?.[key];
    if (value === undefined) {
      process.stderr.write(`no value at ${path} in: ${text.slice(0, 500)}\n`);
      process.exit(1);
    }
  }
  process.stdout.write(`${typeof value === 'string' ? value : stringify(value, null, 2)}\n`);
});
