/**
 * Runs the project's TypeScript tools on Node.js itself: `node --import ./infra/tools/typescript-imports.mjs <tool>.ts`.
 * Node.js 22.18+ strips the types (the code has only erasable syntax: tsconfig's erasableSyntaxOnly and
 * verbatimModuleSyntax); this hook adds what the bundler-style imports leave out: a relative specifier
 * without an extension is the .ts file of that name, or the index.ts of that folder. It runs in the
 * loading thread (module.registerHooks), so a tool starts in about two thirds of the CPU time it took
 * through tsx.
 */
import { registerHooks } from 'node:module';

if (typeof registerHooks !== 'function') {
  throw new Error(`The project's tools need Node.js 22.18 or later (this is ${process.version}); npm scripts run the Node.js 22 the project installs.`);
}

const relative = /^\.\.?\//;
const withExtension = /\.(?:[cm]?[jt]s|json|node|wasm)$/;

const notFound = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT']);

const resolveFirst = (candidates, context, nextResolve) => {
  for (const candidate of candidates) {
    try {
      return nextResolve(candidate, context);
    } catch (error) {
      if (!notFound.has(error?.code)) throw error;
    }
  }
  return undefined;
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    const fromPackage = context.parentURL?.includes('/node_modules/') ?? true;
    if (fromPackage || !relative.test(specifier) || withExtension.test(specifier)) return nextResolve(specifier, context);
    return resolveFirst([`${specifier}.ts`, `${specifier}/index.ts`], context, nextResolve) ?? nextResolve(specifier, context);
  },
});
