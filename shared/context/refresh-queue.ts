import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '../platform/aws';
import { queues } from '../queues';

/** A request to rebuild a company's context pictures, carried by the reconciliation queue beside the fetch runs. */
export interface ContextRefreshMessage {
  kind: 'context-refresh';
  companyId: string;
  /** Years to build beside the current one (a read of an account picture of that year). */
  years?: number[];
  /** The read's pending request this message carries (contextRepository.claimRefresh); none from the relay. */
  requestedAt?: string;
  /**
   * From the relay: when it relayed the change's event, after the change committed. A rebuild that
   * started later read the books with the change in them, so it already covers this message.
   */
  changedBy?: string;
}

export const isContextRefresh = (message: unknown): message is ContextRefreshMessage =>
  typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'context-refresh';

export const requestContextRefresh = async (companyId: string, request: Pick<ContextRefreshMessage, 'years' | 'requestedAt' | 'changedBy'> = {}): Promise<void> => {
  const queue = queues.find((candidate) => candidate.name === 'reconciliation')!;
  const message: ContextRefreshMessage = { kind: 'context-refresh', companyId, ...request };
  await sqs().send(new SendMessageCommand({ QueueUrl: process.env[queue.urlEnv], MessageBody: JSON.stringify(message) }));
};
