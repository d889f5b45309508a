import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, in the order they start within their project (measured on a 2-core
 * machine; the CDK synth files count their load). A file missing here runs after the listed ones
 * of its project, in vitest's own order (by its last duration, or by size on a fresh clone).
 */
export const longestFiles = [
  'test/local/dynamodb-local.test.ts',
  'test/local/sqs.test.ts',
  'test/infra/bundle-size.test.ts',
  'test/infra/stack.test.ts',
  'test/infra/monitoring.test.ts',
  'test/integration/bank.test.ts',
  'test/integration/invoke-cli.test.ts',
  'test/integration/import-redelivery.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/saft.test.ts',
  'test/integration/identity-provider.test.ts',
  'test/integration/import-bounds.test.ts',
  'test/integration/imports-modes-http.test.ts',
  'test/integration/reach.test.ts',
  'test/integration/readme.test.ts',
  'test/integration/ledger-reads.test.ts',
  'test/integration/docs-commands.test.ts',
  'test/integration/import-requeue.test.ts',
  'test/integration/line-deletion-holds.test.ts',
  'test/integration/saft-delete-missing.test.ts',
  'test/integration/access-matrix.test.ts',
  'test/integration/webhook-secrets.test.ts',
  'test/integration/mcp-context-access.test.ts',
  'test/integration/access.test.ts',
  'test/integration/admin-cli.test.ts',
  'test/integration/sign-in-pages.test.ts',
  'test/integration/imports.test.ts',
  'test/integration/organization-deletion.test.ts',
  'test/integration/webhook-consistency.test.ts',
  'test/integration/webhooks-listen.test.ts',
  'test/integration/documents.test.ts',
];

/**
 * Projects run one after the other: a worker process serves one project, so a file of another
 * project ends it and starts a new one, which loads that project's modules again (a stack worker:
 * the app, the SDK, the OpenAPI validators). The unit tests go first, while the local stack starts;
 * then the stack's files, as workers come free. Interleaved, a run started 22 worker
 * processes instead of 11 (three of them the isolated project's, one per file).
 */
const projectOrder = ['unit-isolated', 'unit', 'stack'];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const project = projectOrder.indexOf(spec.project.name);
      const listed = longestFiles.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return [project === -1 ? projectOrder.length : project, listed === -1 ? longestFiles.length : listed] as const;
    };
    const ranked = vitestOrder.map((spec, index) => ({ spec, index, rank: rank(spec) }));
    ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index);
    return ranked.map(({ spec }) => spec);
  }
}
