import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../platform/aws';

/** One write of a transaction (a Put, Update, Delete or ConditionCheck), as repositories build them. */
export type TransactionWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * DynamoDB cancelled the transaction: `names` are the writes whose conditions did not hold (none
 * when it was cancelled for another reason); `conflicts` the writes on items a concurrent
 * transaction was writing (TransactionConflict: the other one may have won).
 */
export class ConditionsFailed extends Error {
  readonly names: readonly string[];
  readonly conflicts: readonly string[];

  constructor(names: readonly string[], conflicts: readonly string[] = []) {
    super(names.length ? `Transaction conditions failed: ${names.join(', ')}` : conflicts.length ? `Transaction conflicted on: ${conflicts.join(', ')}` : 'Transaction cancelled');
    this.names = names;
    this.conflicts = conflicts;
  }
}

/**
 * The writes of one use case, collected from the repositories and committed together in one
 * TransactWriteItems (all or nothing). Each write has a name, so a failed condition is reported
 * by what it guards ("laneLock", "import") instead of by its position.
 */
export class UnitOfWork {
  private readonly writes: { name: string; write: TransactionWrite }[] = [];

  add(name: string, write: TransactionWrite): this {
    this.writes.push({ name, write });
    return this;
  }

  /** Commits every write; a cancelled transaction throws ConditionsFailed naming the writes whose conditions failed. */
  async commit(): Promise<void> {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: this.writes.map(({ write }) => write) }));
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const withCode = (code: string) => (error.CancellationReasons ?? []).flatMap((reason, index) => (reason.Code === code ? [this.writes[index]!.name] : []));
      throw new ConditionsFailed(withCode('ConditionalCheckFailed'), withCode('TransactionConflict'));
    }
  }
}

export const unitOfWork = () => new UnitOfWork();

/**
 * Commits these writes as one transaction; false when DynamoDB cancelled it (a condition did not
 * hold, or a concurrent transaction conflicted): the caller re-reads and decides.
 */
export const commitUnlessCancelled = async (writes: readonly TransactionWrite[]): Promise<boolean> => {
  const work = unitOfWork();
  writes.forEach((write, index) => work.add(`write ${index}`, write));
  try {
    await work.commit();
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailed) return false;
    throw error;
  }
};
