import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { createImportWorker } from '../../shared/imports/worker';
import { logger } from '../../shared/platform/logger';
import { createSaftProcessor } from '../../shared/saft/worker';

/** SQS-triggered (imports queue): applies accepted imports and SAF-T imports; partial batch failures are redelivered. */
export const handler = middy(createImportWorker(importKinds, postFetchEngineNames, createSaftProcessor(importKinds, postFetchEngineNames))).use(injectLambdaContext(logger, { resetKeys: true }));
