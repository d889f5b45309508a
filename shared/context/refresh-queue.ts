import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '../platform/aws';
import { queues } from '../queues';

/** A request to rebuild a company's context pictures, carried by the reconciliation queue beside the fetch runs. */
export interface ContextRefreshMessage {
  kind: 'context-refresh';
  companyId: string;
}

export const isContextRefresh = (message: unknown): message is ContextRefreshMessage =>
  typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'context-refresh';

export const requestContextRefresh = async (companyId: string): Promise<void> => {
  const queue = queues.find((candidate) => candidate.name === 'reconciliation')!;
  const message: ContextRefreshMessage = { kind: 'context-refresh', companyId };
  await sqs().send(new SendMessageCommand({ QueueUrl: process.env[queue.urlEnv], MessageBody: JSON.stringify(message) }));
};
