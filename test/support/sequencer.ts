import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, in the order they start (measured on a 2-core machine; the CDK synth
 * files count their load), whatever their project: a unit file that needs no stack runs while the
 * stack starts, the longest stack files start as soon as it is up, and the heavy unit files sit
 * among the stack's, where they use the core the stack's single Node.js process leaves free. So the
 * run never ends on one long file while the other worker waits. Ordering only: a file missing here
 * runs after the listed ones, in vitest's own order (by its last duration, or by size on a fresh clone).
 */
export const longestFiles = [
  'test/local/dynamodb-local.test.ts',
  'test/integration/docs-commands.test.ts',
  'test/integration/readme.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/invoke-cli.test.ts',
  'test/integration/import-redelivery.test.ts',
  'test/infra/stack.test.ts',
  'test/integration/import-bounds.test.ts',
  'test/integration/bank.test.ts',
  'test/infra/monitoring.test.ts',
  'test/integration/reach.test.ts',
  'test/integration/webhook-secrets.test.ts',
  'test/local/sqs.test.ts',
  'test/integration/saft.test.ts',
  'test/integration/imports-modes-http.test.ts',
  'test/infra/bundle-size.test.ts',
  'test/integration/ledger-reads.test.ts',
  'test/integration/access-matrix.test.ts',
  'test/integration/saft-delete-missing.test.ts',
  'test/integration/admin-cli.test.ts',
  'test/integration/documents.test.ts',
];

/** After the listed files, projects in this order: the short unit files fill the end of the run. */
const projectOrder = ['unit-isolated', 'stack', 'unit'];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const project = projectOrder.indexOf(spec.project.name);
      const listed = longestFiles.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return listed === -1 ? ([1, project === -1 ? projectOrder.length : project] as const) : ([0, listed] as const);
    };
    const ranked = vitestOrder.map((spec, index) => ({ spec, index, rank: rank(spec) }));
    ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index);
    return ranked.map(({ spec }) => spec);
  }
}
