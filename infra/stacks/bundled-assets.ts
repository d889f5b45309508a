import path from 'node:path';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';

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

export const bundledAssetHooks = (entry: string, repoRoot: string): { commandHooks?: ICommandHooks } => {
  const files = bundledAssets[entry];
  if (!files?.length) return {};
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => files.map((file) => `cp "${path.join(repoRoot, file)}" "${outputDir}/"`),
    },
  };
};
