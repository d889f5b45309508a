import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ICommandHooks, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { prebuiltDocumentFile, prebuiltYamlFile } from '../../shared/openapi/prebuilt';
import { tracingModuleFile } from '../../shared/platform/tracer';
import { queues } from '../../shared/queues';
import { authorizerEntry, functionGroups } from '../../shared/routes';

/**
 * Files a function serves that esbuild does not bundle, copied beside its index.mjs at synth
 * (vendored from node_modules, so the function needs no internet): the openapi function serves
 * Redoc's standalone bundle for GET /docs (functions/openapi/reference.ts looks beside itself first).
 */
export const bundledAssets: Record<string, string[]> = {
  'functions/openapi/handler.ts': ['node_modules/redoc/bundles/redoc.standalone.js'],
  // SAF-T: the XSDs, and xmllint-wasm (it starts a worker thread from its own directory, so it is not bundled).
  'functions/import-worker/handler.ts': [
    'shared/saft/xsd/Norwegian_SAF-T_Financial_Schema_v_1.10.xsd',
    'shared/saft/xsd/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd',
    'node_modules/xmllint-wasm/index-node.js',
    'node_modules/xmllint-wasm/xmllint-node.js',
    'node_modules/xmllint-wasm/xmllint.wasm',
  ],
};

/**
 * Functions that serve the OpenAPI document or read it (the MCP tool schemas): their bundles read
 * the document generated at build time from the files beside them (shared/openapi/prebuilt.ts),
 * written by infra/tools/openapi-template.ts: openapi.json, and for the openapi function, which
 * serves it as YAML too, openapi.yaml.
 */
export const prebuiltDocumentFiles: Record<string, readonly string[]> = {
  'functions/openapi/handler.ts': [prebuiltDocumentFile, prebuiltYamlFile],
  'functions/mcp/handler.ts': [prebuiltDocumentFile],
};
export const prebuiltDocumentEntries = Object.keys(prebuiltDocumentFiles);

/** Writes the document generated at build time, with its placeholders: a path ending in .json as JSON, in .yaml as YAML. */
export const writeDocumentTemplates = async (paths: readonly string[]): Promise<void> => {
  const unknown = paths.filter((file) => !/\.(json|yaml)$/.test(file));
  if (unknown.length > 0) throw new Error(`The document is written as .json or .yaml, not ${unknown.join(', ')}`);
  const [{ buildDocumentTemplate }, { documentYaml }] = await Promise.all([import('../../shared/openapi/document'), import('../../shared/openapi/yaml')]);
  const template = buildDocumentTemplate();
  for (const file of paths) writeFileSync(file, file.endsWith('.json') ? template : documentYaml(JSON.parse(template)));
};

/** The module shared/platform/tracer.ts loads beside each bundle when tracing may be on. */
export const tracingModuleEntry = 'shared/platform/tracing.ts';

/** The esbuild CLI command that writes the tracing module into a function's output folder, with the functions' settings (no source map). */
const tracingModuleCommand = (repoRoot: string, outputDir: string): string =>
  [
    `"${path.join(repoRoot, 'node_modules/.bin/esbuild')}" "${path.join(repoRoot, tracingModuleEntry)}"`,
    '--bundle --platform=node --format=esm --minify --log-level=error',
    `--target=${lambdaBundling.target} --main-fields=${lambdaBundling.mainFields.join(',')}`,
    `--banner:js="${lambdaBundling.banner}"`,
    `--outfile="${path.join(outputDir, tracingModuleFile)}"`,
  ].join(' ');

/** What is copied or written beside each function's bundle at synth: its vendored files, its document files, the tracing module. */
export const bundledAssetHooks = (entry: string, repoRoot: string): { commandHooks: ICommandHooks } => {
  const files = bundledAssets[entry] ?? [];
  const documentFiles = prebuiltDocumentFiles[entry] ?? [];
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [
        ...files.map((file) => `cp "${path.join(repoRoot, file)}" "${outputDir}/"`),
        ...(documentFiles.length ? [`cd "${repoRoot}" && npx tsx infra/tools/openapi-template.ts ${documentFiles.map((file) => `"${outputDir}/${file}"`).join(' ')}`] : []),
        tracingModuleCommand(repoRoot, outputDir),
      ],
    },
  };
};

/**
 * How every Lambda is bundled (NodejsFunction's bundling options in infra/stacks/api-stack.ts):
 * one minified ESM file for Node 22 with the pinned SDK inside. The bench and the bundle-size
 * test build with the same settings (lambdaEsbuildOptions), so their bytes are the deployed bytes.
 */
export const lambdaBundling = {
  format: 'esm' as OutputFormat,
  target: 'node22',
  mainFields: ['module', 'main'],
  // ESM output: give CommonJS dependencies bundled into it a working `require`.
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // The openapi and mcp functions read the OpenAPI document generated at build time (prebuiltDocumentEntries).
  // Tracing (the Powertools Tracer and the X-Ray SDK) is the module tracing.mjs beside the bundle, loaded only when tracing may be on.
  define: { OPENAPI_DOCUMENT_PREBUILT: 'true', TRACING_MODULE_BESIDE: 'true' },
  // Evaluated first: stack traces name the TypeScript source, read from the source map only when
  // a stack is formatted (Node.js's --enable-source-maps reads it at every cold start).
  inject: [path.resolve(import.meta.dirname, '../../shared/platform/source-mapped-stacks-install.ts')],
};

/** The same settings for esbuild's own build API (what NodejsFunction passes to the esbuild CLI). */
export const lambdaEsbuildOptions = (entry: string, outfile: string): BuildOptions => ({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: lambdaBundling.target,
  mainFields: lambdaBundling.mainFields,
  banner: { js: lambdaBundling.banner },
  minify: lambdaBundling.minify,
  sourcemap: lambdaBundling.sourceMap,
  sourcesContent: lambdaBundling.sourcesContent,
  define: lambdaBundling.define,
  inject: lambdaBundling.inject,
  logLevel: 'error',
});

/** The tracing module's build: the functions' settings, without their source map, injection and definitions. */
export const tracingModuleOptions = (outfile: string): BuildOptions => {
  const { sourcemap: _map, sourcesContent: _sources, define: _define, inject: _inject, ...options } = lambdaEsbuildOptions(tracingModuleEntry, outfile);
  return options;
};

/** Every Lambda of the API stack by name (its folder under functions/) and entry. */
export const lambdaEntries: { name: string; entry: string }[] = [
  authorizerEntry,
  ...Object.values(functionGroups).map((group) => group.entry),
  ...queues.flatMap((queue) => (queue.workerEntry ? [queue.workerEntry] : [])),
  'functions/webhook-relay/handler.ts',
  'functions/outbox-sweeper/handler.ts',
].map((entry) => ({ name: entry.split('/')[1]!, entry }));

/** A bundle's budget: 1 MiB, unless it is listed here with the reason it needs more. */
export const bundleBudgetBytes = 1024 * 1024;
export const bundleBudgetExceptions: Record<string, string> = {
  mcp:
    'the MCP SDK with the JSON Schema validator its Server module imports (ajv, ~130 KiB; an instance is built only when a request needs one, functions/mcp/server.ts), and the read operations of seven groups; their group operation maps bring S3 (document uploads and downloads, ~100 KiB) that no tool uses (the tool schemas come from the document generated at build time, not from the generator)',
};

/**
 * Functions whose init may stay above the cold-start goal (1.3 x its floor's CPU time, npm run
 * bench:cold-start), with the measured reason; the bench prints it beside the table.
 */
export const initGoalExceptions: Record<string, string> = {
  mcp: "the MCP SDK builds the zod schemas of its protocol messages when it loads (about 20 ms of CPU) and its Server module imports and evaluates ajv (about 7 ms), the schemas used by every request (npm run bench:cold-start -- --modules); loading them on the first request would need a dynamic import, which makes esbuild keep all of zod and of the SDK clients (more bytes to parse than it saves)",
};

export interface LambdaBundle {
  name: string;
  entry: string;
  file: string;
  bytes: number;
  /** Source files bundled into it (its own and its dependencies'). */
  modules: number;
  /** Bytes each npm package (or folder of this repository) contributes to the output. */
  bytesByPackage: Record<string, number>;
  /** The AWS SDK packages it bundles (clients, lib-dynamodb, the presigner). */
  sdkPackages: string[];
  /** Every bundled input path. */
  inputs: string[];
}

const packageOf = (input: string): string => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, input.startsWith('shared/') || input.startsWith('functions/') ? 2 : 1).join('/');

/**
 * Bundles Lambdas as the stack does, into outDir/<name>.mjs each; answers each one's size and what
 * is in it. One esbuild run for all (each output is the same as bundling it alone: no code
 * splitting), so the modules they share are read and parsed once.
 */
export const bundleLambdas = async (lambdas: readonly { name: string; entry: string }[], outDir: string, repoRoot: string): Promise<LambdaBundle[]> => {
  const { build } = await import('esbuild');
  const { entryPoints: _one, outfile: _file, ...options } = lambdaEsbuildOptions('', '');
  const result = await build({
    ...options,
    entryPoints: lambdas.map(({ name, entry }) => ({ in: path.join(repoRoot, entry), out: name })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: repoRoot,
    metafile: true,
  });
  // Beside the bundles, as afterBundling writes them at synth.
  await build({ ...tracingModuleOptions(path.join(outDir, tracingModuleFile)), absWorkingDir: repoRoot });
  const documentFiles = [...new Set(lambdas.flatMap(({ entry }) => prebuiltDocumentFiles[entry] ?? []))];
  if (documentFiles.length > 0) await writeDocumentTemplates(documentFiles.map((file) => path.join(outDir, file)));
  return lambdas.map(({ name, entry }) => {
    const file = path.join(outDir, `${name}.mjs`);
    const output = result.metafile.outputs[path.relative(repoRoot, file)];
    if (!output) throw new Error(`esbuild wrote no ${file}`);
    const bytesByPackage: Record<string, number> = {};
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = packageOf(input);
      bytesByPackage[key] = (bytesByPackage[key] ?? 0) + bytesInOutput;
    }
    const sdkPackages = Object.keys(bytesByPackage)
      .filter((key) => /^@aws-sdk\/(client-(?!.*nested)|lib-dynamodb$|s3-request-presigner$)/.test(key))
      .sort();
    return { name, entry, file, bytes: output.bytes, modules: Object.keys(output.inputs).length, bytesByPackage, sdkPackages, inputs: Object.keys(output.inputs) };
  });
};

/** Bundles one Lambda as the stack does, into outDir/<name>.mjs; answers its size and what is in it. */
export const bundleLambda = async (name: string, entry: string, outDir: string, repoRoot: string): Promise<LambdaBundle> =>
  (await bundleLambdas([{ name, entry }], outDir, repoRoot))[0]!;
