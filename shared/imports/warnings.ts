import { lazySchema } from '../platform/lazy-schema';
import { Decimal } from '../platform/money';
import { CountSchema, limits, textOut } from '../platform/schemas';
import * as z from '../platform/zod';

/** At most this many transaction ids are named by one warning. */
export const maxWarningIds = 100;

/**
 * A condition worth the integrator's attention that does not stop the import. Today one kind:
 * `unbalanced_vouchers`, GL lines of one transactionId in the request that do not sum to zero.
 */
export const ImportWarningSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    code: z.enum(['unbalanced_vouchers']).openapi({ description: 'What the warning is about; branch on it. `unbalanced_vouchers`: the request holds lines of vouchers (same `transactionId`) whose amounts do not sum to zero.' }),
    message: textOut(limits.message).openapi({ description: 'The warning as a sentence, for people' }),
    transactionIds: z.array(textOut(limits.integratorId)).max(maxWarningIds).openapi({ description: `The transactionIds concerned (at most ${maxWarningIds}; \`count\` says how many there are in all)` }),
    count: CountSchema.openapi({ description: 'How many transactionIds the warning concerns in all' }),
  })
  .openapi('ImportWarning', {
    description:
      'A condition that does not stop the import. The lines are accepted as sent (the other lines of a voucher may arrive in a later request); check the vouchers named once every request is in.',
  }));

export type ImportWarning = z.infer<typeof ImportWarningSchema>;

interface VoucherLine {
  transactionId?: string | null;
  amount: Decimal;
}

/** Vouchers of a GL-line import whose lines in this request do not sum to zero (lines without transactionId belong to none). */
export const unbalancedVoucherWarnings = (lines: readonly VoucherLine[]): ImportWarning[] => {
  const sums = new Map<string, Decimal>();
  for (const line of lines) {
    if (!line.transactionId) continue;
    sums.set(line.transactionId, (sums.get(line.transactionId) ?? new Decimal(0)).plus(line.amount));
  }
  const unbalanced = [...sums].filter(([, sum]) => !sum.isZero()).map(([id]) => id);
  if (unbalanced.length === 0) return [];
  return [
    {
      code: 'unbalanced_vouchers',
      message: `${unbalanced.length} voucher(s) in this request do not sum to zero; the lines were accepted (the rest of a voucher may come in another request).`,
      transactionIds: unbalanced.slice(0, maxWarningIds),
      count: unbalanced.length,
    },
  ];
};
