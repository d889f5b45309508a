import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs; request handlers append requestId, clientId and organizationId. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'ledger-api' });
