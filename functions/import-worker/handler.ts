import { importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { createImportWorker } from '../../shared/imports/worker';
import { lambdaHandler } from '../../shared/platform/lambda-handler';
import { createSaftProcessor } from '../../shared/saft/worker';

/** SQS-triggered (imports queue): applies accepted imports and SAF-T imports; partial batch failures are redelivered. */
export const handler = lambdaHandler(createImportWorker(importKinds, postFetchEngineNames, createSaftProcessor(importKinds, postFetchEngineNames)));
