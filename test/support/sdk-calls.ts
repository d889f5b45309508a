import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** An AWS SDK v3 client (or document client) whose middleware stack can be added to. */
export interface ObservableClient {
  middlewareStack: {
    add(middleware: (next: (args: { input: object }) => Promise<unknown>, context: { commandName?: string }) => (args: { input: object }) => Promise<unknown>, options: { step: 'initialize'; name: string }): void;
    remove(name: string): boolean;
  };
}

/**
 * Runs `run` while `onCall` sees each call (command name and input) of one of the service's own
 * SDK clients before it is sent; the observer is on the client's middleware stack only meanwhile.
 * An `onCall` that throws fails that call as the SDK would (e.g. a TransactionCanceledException).
 */
export const observingCalls = async <T>(
  client: ObservableClient,
  onCall: (commandName: string, input: Record<string, unknown>) => unknown,
  run: () => Promise<T>,
): Promise<T> => {
  const name = `observe-${randomUUID()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      await onCall(context.commandName ?? '', args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return await run();
  } finally {
    client.middlewareStack.remove(name);
  }
};

/**
 * Runs `run` with the first transaction whose writes mention `marker` cancelled as DynamoDB cancels
 * two racing ones now and then: TransactionConflict on every write, nothing written. Answers what
 * `run` answers and how many were cancelled (one, when such a transaction was made).
 */
export const firstTransactionConflicted = async <T>(client: ObservableClient, marker: string, run: () => Promise<T>): Promise<{ answer: T; cancelled: number }> => {
  let cancelled = 0;
  const answer = await observingCalls(
    client,
    (commandName, input) => {
      const writes = (input.TransactItems as object[] | undefined) ?? [];
      if (commandName !== 'TransactWriteItemsCommand' || cancelled > 0 || !writes.some((write) => JSON.stringify(write).includes(marker))) return;
      cancelled++;
      throw new TransactionCanceledException({ message: 'Transaction cancelled [TransactionConflict]', $metadata: {}, CancellationReasons: writes.map(() => ({ Code: 'TransactionConflict' })) });
    },
    run,
  );
  return { answer, cancelled };
};
