import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The Node.js options that run one of the project's .ts files as its npm scripts do (infra/tools/typescript-imports.mjs). */
export const typescriptNodeArgs: readonly string[] = ['--import', pathToFileURL(resolve(import.meta.dirname, 'typescript-imports.mjs')).href];
