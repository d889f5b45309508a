import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultBankGlAccount, maxCamt053Bytes, maxCamt053Entries } from '../../shared/bank/defaults';
import { accountingSystems } from '../../shared/companies/values';
import { passwordPolicy } from '../../shared/identity/password-policy';
import { ProblemError } from '../../shared/platform/problem';
import { isConnectionRefused, ToolError } from './stack-env';
import { awsQueues, countsOf, localQueues, peek, purge, queueName, queueNames, readableBody, redrive, type QueueLocator, type QueueName } from './dead-letter-queues';
import { checkIdFlags, ConfirmationError, integerFlag, options, plural, requireFlag, shortTime, StoppedPartWay, table, UsageError, useLocalStack, type Flag, type Printer, type Values } from './admin-cli';

/**
 * `npm run admin -- <command> [flags]`: what an organization administrator does outside the
 * public API (organizations, companies, API clients), against the local stack or AWS.
 */
export interface ToolIo {
  out(line: string): void;
  err(line: string): void;
}

interface CommandSpec {
  required: Flag[];
  optional: Flag[];
  args: string;
  description: string;
  /** Works on the service's queues (local stack or --resource-prefix), not on its table. */
  queues?: true;
  /** Writes events: on AWS it needs --outbox-table. */
  writesEvents?: true;
  /** Destructive: on AWS refused without --yes, saying what it would do (checked before AWS is touched). */
  confirm?: (values: Values) => string;
  /** Local stack only: on AWS refused with this line (exit 1, before AWS is touched). */
  localOnly?: string;
}

const commands: Record<string, CommandSpec> = {
  'create-organization': {
    required: ['name'],
    optional: ['parent'],
    args: '--name NAME [--parent ORG_ID]',
    description: 'Create an organization (a child of --parent when given)',
  },
  'delete-organization': {
    required: ['id'],
    optional: ['yes'],
    args: '--id ORG_ID [--yes]',
    description:
      'Delete an organization and its sub-organizations, as offboarding: API clients revoked, webhook subscriptions and access policies deleted, memberships ended (a person left without an organization is deleted, login and all), companies cascade-deleted. A deletion that stopped half-way is finished by running it again. On AWS refused without --yes',
    writesEvents: true,
    confirm: (values) => `delete organization ${values.id} with its sub-organizations, companies, people and clients`,
  },
  'create-company': {
    required: ['organization', 'name'],
    optional: ['accounting-system', 'organization-number'],
    args: '--organization ORG_ID --name NAME [--accounting-system SYSTEM] [--organization-number NNNNNNNNN]',
    description: `Create a company in an organization; SYSTEM is one of ${accountingSystems.join('|')} (default Api)`,
    writesEvents: true,
  },
  'create-client': {
    required: ['name'],
    optional: ['organization', 'user', 'scopes', 'plan', 'rate-limit'],
    args: '--organization ORG_ID --name NAME [--user USER_ID] [--scopes a,b,c] [--plan standard|premium] [--rate-limit PER_MINUTE/BURST]',
    description:
      'Create an API client (default: every scope its mode may hold, plan standard); prints its secret once. NAME: up to 128 of A-Z a-z 0-9 space _ + = , . @ - (as Cognito takes it). --rate-limit sets a custom limit in place of the plan\'s (e.g. 3000/600). With --user: a per-user (USER) client acting for that person, never seeing more than the person may (--organization defaults to the person\'s first organization)',
  },
  'create-user': {
    required: ['organization', 'email', 'name'],
    optional: ['password'],
    args: '--organization ORG_ID --email EMAIL --name NAME [--password PASSWORD]',
    description: `Create a person (a member of the organization) with a login; prints the password when it was generated. On AWS also the Cognito user (username = user id). PASSWORD: at least ${passwordPolicy.minLength} characters with a lowercase and an uppercase letter, a digit and a symbol (the user pool's policy)`,
  },
  'add-membership': {
    required: ['user', 'organization'],
    optional: [],
    args: '--user USER_ID --organization ORG_ID',
    description: 'Make a person a member of another organization (their access is recomputed at once)',
  },
  'remove-membership': {
    required: ['user', 'organization'],
    optional: [],
    args: '--user USER_ID --organization ORG_ID',
    description: 'End a membership (not the last one: use delete-user); their access is recomputed at once',
  },
  'delete-user': {
    required: ['user'],
    optional: ['yes'],
    args: '--user USER_ID [--yes]',
    description:
      'Delete a person: their access ends at once, assignments go, per-user clients are revoked, the login is removed. A deletion that stopped half-way (e.g. Cognito throttled) is finished by running it again. On AWS refused without --yes',
    confirm: (values) => `delete user ${values.user} with their access, assignments, per-user clients and login`,
  },
  'rotate-client': {
    required: ['client-id'],
    optional: ['yes'],
    args: '--client-id CLIENT_ID [--yes]',
    description: 'Give an active client a new secret (printed once); the old secret stops working at once, its tokens within the authorizer cache TTL. One rotation of a client at a time: another one meanwhile is refused. On AWS refused without --yes',
    confirm: (values) => `replace the secret of API client ${values['client-id']} (the old secret stops working at once)`,
  },
  'list-clients': {
    required: ['organization'],
    optional: [],
    args: '--organization ORG_ID',
    description: 'List the API clients of an organization (never their secrets)',
  },
  'import-bank-statement': {
    required: ['company', 'file'],
    optional: ['gl-account'],
    args: '--company COMPANY_ID --file STATEMENT.xml [--gl-account CODE]',
    description: `Ingest an ISO 20022 camt.053 bank statement; a new bank account maps to GL account --gl-account (default ${defaultBankGlAccount}). At most ${maxCamt053Bytes / 1024 / 1024} MiB and ${maxCamt053Entries.toLocaleString('en')} entries, no DOCTYPE; every text it reads within its ISO 20022 length (Stmt/Id, MsgId, NtryRef, AcctSvcrRef 35) and without control or bidi characters, or the whole file is refused`,
    writesEvents: true,
  },
  'auto-reconcile': {
    required: ['company', 'year'],
    optional: [],
    args: '--company COMPANY_ID --year YYYY',
    description: 'Run auto-reconciliation for a company and year now (it also runs after every GL import)',
    writesEvents: true,
  },
  'backfill-webhook-index': {
    required: [],
    optional: [],
    args: '',
    description: 'Upgrade step: index webhook subscriptions created before subscription lists showed the organization subtree, so every list shows them (idempotent)',
  },
  'set-period-approval': {
    required: ['company', 'gl-account', 'year', 'period', 'status'],
    optional: ['by'],
    args: '--company COMPANY_ID --gl-account CODE --year YYYY --period 1-12 --status approved|not_approved [--by NAME]',
    description: "Record the firm's approval of a period on a GL account (shown in the reconciliation summary). NAME (default admin-cli): at most 200 characters, no control or bidi characters",
  },
  'outbox-sweep': {
    required: [],
    optional: ['older-than', 'dry-run'],
    args: '[--older-than SECONDS] [--dry-run]',
    description:
      'Relay outbox events still pending after SECONDS (default 600) now, as the scheduled sweeper does; --dry-run lists them. Local stack only: on AWS invoke the deployed sweeper (stack output OutboxSweeperFunctionName)',
    localOnly: 'outbox-sweep runs on the local stack; on AWS invoke the deployed sweeper: aws lambda invoke --function-name <OutboxSweeperFunctionName> out.json',
  },
  'dlq-list': {
    required: [],
    optional: ['queue'],
    args: '[--queue NAME]',
    description: `Dead-letter queues with their approximate message counts (visible, in flight); NAME is one of ${queueNames.join('|')}`,
    queues: true,
  },
  'dlq-show': {
    required: ['queue'],
    optional: ['max'],
    args: '--queue NAME [--max N]',
    description:
      'Show up to N (default 10) messages of a DLQ: id, sent time, receive count, body. Leaves them in place: received with a short visibility timeout, then made visible again at once (ChangeMessageVisibility 0); each look adds one to the receive count',
    queues: true,
  },
  'dlq-redrive': {
    required: ['queue'],
    optional: ['max', 'dry-run', 'yes'],
    args: '--queue NAME [--max N] [--dry-run | --yes]',
    description:
      'Move the messages of a DLQ (or N of them) back to its source queue, one at a time: sent to the source, then deleted from the DLQ. --dry-run lists what would move and changes nothing. On AWS (--resource-prefix) refused without --yes or --dry-run',
    queues: true,
  },
  'dlq-purge': {
    required: ['queue'],
    optional: ['dry-run', 'yes'],
    args: '--queue NAME (--yes | --dry-run)',
    description: 'Delete every message of a DLQ (refused without --yes; --dry-run says how many would go)',
    queues: true,
  },
};

const commandFlags = new Set<string>(Object.values(commands).flatMap((spec) => [...spec.required, ...spec.optional]));

const eventWritingCommands = () => Object.keys(commands).filter((name) => commands[name]!.writesEvents);

export const adminUsage = (): string => {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'Usage: npm run admin -- <command> [flags]',
    '',
    'Commands:',
    ...Object.entries(commands).flatMap(([name, spec]) => [`  ${name.padEnd(width)}  ${spec.args}`, `  ${''.padEnd(width)}    ${spec.description}`]),
    '',
    'Target (default: the local stack described by .local/stack.json, started with npm start):',
    '  --stack FILE                  another local stack file',
    '  --table NAME --user-pool-id ID [--outbox-table NAME] [--region REGION]',
    '                                AWS: the service table and Cognito user pool; AWS credentials come from',
    '                                the environment; the region defaults to the user pool\'s. The outbox table',
    '                                (stack output OutboxTableName) is needed by the commands that write events:',
    `                                ${eventWritingCommands().join(', ')}`,
    '  --resource-prefix PREFIX [--region REGION]',
    '                                AWS, for the dlq-* commands: the queues <PREFIX>-<NAME> and <PREFIX>-<NAME>-dlq',
    '                                (the stacks\' resource prefix); the region defaults to AWS_REGION',
    '',
    'Output:',
    '  --json                        machine-readable JSON on stdout',
    '  --help                        this text',
    '',
    'Ids (ORG_ID, COMPANY_ID, USER_ID) are UUIDs, CLIENT_ID up to 128 of A-Z a-z 0-9 _ +; another value is refused (exit 1).',
    '',
    'Exit codes: 0 done, 1 failed (one line on stderr), 2 usage error (or a destructive command on AWS without --yes: one line).',
  ].join('\n');
};

interface QueueTarget {
  queues: QueueLocator;
  description: string;
  /** What a refused connection failed to reach. */
  sqs: string;
  /** The deployed queues (--resource-prefix), not the local stack's. */
  aws: boolean;
}

/** The local stack's queues (its stack file lists their URLs) or, with --resource-prefix, the deployed ones. */
const selectQueueTarget = (values: Values): QueueTarget => {
  if (values.table !== undefined || values['user-pool-id'] !== undefined || values['outbox-table'] !== undefined) {
    throw new UsageError('The dlq-* commands find the AWS queues by --resource-prefix, not --table / --user-pool-id');
  }
  const prefix = values['resource-prefix'];
  if (prefix !== undefined) {
    if (values.stack) throw new UsageError('--stack targets the local stack; do not combine it with --resource-prefix');
    if (!/^[A-Za-z0-9_-]{1,60}$/.test(prefix)) throw new ToolError(`--resource-prefix ${prefix} is not a queue name prefix (letters, digits, - and _)`);
    const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new UsageError('Cannot tell the AWS region: pass --region');
    return { queues: awsQueues(prefix, region), description: `AWS queues ${prefix}-* (${region})`, sqs: `SQS in ${region}`, aws: true };
  }
  if (values.region) throw new UsageError('--region only applies with --resource-prefix');
  const info = useLocalStack(values, '--resource-prefix');
  return {
    queues: localQueues(info.internal.sqsEndpoint, info.internal.region, info.internal.queues),
    description: `local stack (SQS at ${info.internal.sqsEndpoint})`,
    sqs: `the SQS emulator at ${info.internal.sqsEndpoint}`,
    aws: false,
  };
};

type QueueRun = (values: Values, target: QueueTarget, print: Printer) => Promise<void>;

const queuePair = async (values: Values, target: QueueTarget) => {
  const name = queueName(requireFlag(values, 'queue'));
  const { url, dlqUrl } = await target.queues.urls(name);
  const source = target.queues.label(name);
  return { name, url, dlqUrl, source, dlq: `${source}-dlq` };
};

const queueRun: Record<string, QueueRun> = {
  async 'dlq-list'(values, target, print) {
    const names: readonly QueueName[] = values.queue !== undefined ? [queueName(values.queue)] : queueNames;
    const rows = await Promise.all(
      names.map(async (name) => {
        const { dlqUrl } = await target.queues.urls(name);
        return { queue: name, deadLetterQueue: `${target.queues.label(name)}-dlq`, url: dlqUrl, ...(await countsOf(target.queues.client, dlqUrl)) };
      }),
    );
    print.json(rows);
    const waiting = rows.reduce((sum, row) => sum + row.visible + row.inFlight, 0);
    print.lines(
      ...table(['QUEUE', 'DEAD-LETTER QUEUE', 'VISIBLE', 'IN FLIGHT'], rows.map((row) => [row.queue, row.deadLetterQueue, String(row.visible), String(row.inFlight)])),
      `${plural(waiting, 'message')} (approximately) in ${plural(rows.length, 'dead-letter queue')} of the ${target.description}`,
    );
  },

  async 'dlq-show'(values, target, print) {
    const max = values.max !== undefined ? integerFlag(values, 'max', 1, 1000) : 10;
    const { name, dlqUrl, dlq } = await queuePair(values, target);
    const messages = await peek(target.queues.client, dlqUrl, max);
    print.json({ queue: name, deadLetterQueue: dlq, messages });
    print.lines(
      `${plural(messages.length, 'message')} of ${dlq}${messages.length === max ? ` (the first ${max}; --max shows more)` : ''}, left in the queue`,
      ...messages.flatMap((message) => [
        '',
        `message   ${message.messageId}`,
        `sent      ${shortTime(message.sentAt) || '(unknown)'}`,
        `receives  ${message.receiveCount}`,
        ...readableBody(message.body).split('\n').map((line) => `  ${line}`),
      ]),
    );
  },

  async 'dlq-redrive'(values, target, print) {
    const max = values.max !== undefined ? integerFlag(values, 'max', 1, 100_000) : Infinity;
    if (target.aws && !values['dry-run'] && !values.yes) {
      // Refused before any call to SQS.
      const source = target.queues.label(queueName(requireFlag(values, 'queue')));
      const what = max === Infinity ? 'every message' : `up to ${plural(max, 'message')}`;
      throw new ConfirmationError(`dlq-redrive would move ${what} of ${source}-dlq back to ${source} on the ${target.description}: pass --yes (or --dry-run to list them)`);
    }
    const { name, url, dlqUrl, source, dlq } = await queuePair(values, target);
    if (values['dry-run']) {
      const messages = await peek(target.queues.client, dlqUrl, max);
      print.json({ queue: name, from: dlq, to: source, dryRun: true, messages: messages.map(({ body: _body, ...message }) => message) });
      return print.lines(
        `Would move ${plural(messages.length, 'message')} from ${dlq} to ${source} (dry run: nothing changed)`,
        ...messages.map((message) => `  ${message.messageId}  sent ${shortTime(message.sentAt) || '(unknown)'}  receives ${message.receiveCount}`),
      );
    }
    print.progress(`Moving messages from ${dlq} to ${source} on the ${target.description}...`);
    const moved = await redrive(target.queues.client, dlqUrl, url, max, ({ messageId, newMessageId }) => print.progress(`  moved ${messageId} -> ${newMessageId}`));
    print.json({ queue: name, from: dlq, to: source, moved: moved.length, messages: moved });
    print.lines(`Moved ${plural(moved.length, 'message')} from ${dlq} to ${source}`);
  },

  async 'dlq-purge'(values, target, print) {
    const { name, dlqUrl, dlq } = await queuePair(values, target);
    const { visible, inFlight } = await countsOf(target.queues.client, dlqUrl);
    const count = visible + inFlight;
    if (values['dry-run']) {
      print.json({ queue: name, deadLetterQueue: dlq, dryRun: true, wouldDelete: count });
      return print.lines(`Would delete ${plural(count, 'message')} (approximately) of ${dlq} (dry run: nothing changed)`);
    }
    if (!values.yes) throw new ToolError(`dlq-purge would delete ${plural(count, 'message')} (approximately) of ${dlq}: pass --yes to delete them`);
    await purge(target.queues.client, dlqUrl);
    print.json({ queue: name, deadLetterQueue: dlq, deleted: count });
    print.lines(`Purged ${dlq}: ${plural(count, 'message')} (approximately) deleted; SQS may take up to a minute to finish`);
  },
};

const oneLine = (error: unknown, reach: string): string => {
  if (error instanceof ProblemError) return error.problem.detail;
  if (isConnectionRefused(error)) {
    return `Cannot reach ${reach}: is the local stack still running? Start it with npm start.`;
  }
  const err = error as { name?: string; message?: string };
  const message = (err?.message ?? String(error)).split('\n')[0]!;
  // The tool's own refusals (ToolError, AdministrationError: named Error) read as their message alone.
  return err?.name && err.name !== 'Error' && !(error instanceof ToolError) ? `${err.name}: ${message}` : message;
};

export const runAdmin = async (argv: string[], io: ToolIo): Promise<number> => {
  const usageError = (message: string) => {
    io.err(`error: ${message}`);
    io.err('');
    for (const line of adminUsage().split('\n')) io.err(line);
    return 2;
  };

  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // The whole message, as one line: Node's hint (e.g. --password=-XYZ for a value starting with a dash) included.
    return usageError((error as Error).message.replace(/\n/g, ' '));
  }
  const values = parsed.values as Values;
  if (values.help) {
    for (const line of adminUsage().split('\n')) io.out(line);
    return 0;
  }
  const [command, ...extra] = parsed.positionals;
  if (!command) return usageError('no command given');
  const spec = commands[command];
  if (!spec) return usageError(`unknown command ${command}`);
  if (extra.length) return usageError(`unexpected argument ${extra[0]}`);
  const allowed = new Set<string>([...spec.required, ...spec.optional]);
  const misplaced = Object.keys(values).find((flag) => commandFlags.has(flag) && !allowed.has(flag));
  if (misplaced) return usageError(`${command} does not take --${misplaced}`);
  const missing = spec.required.find((flag) => values[flag] === undefined);
  if (missing) return usageError(`${command} needs --${missing}`);

  const print: Printer = values.json
    ? { json: (value) => io.out(JSON.stringify(value, null, 2)), lines: () => undefined, progress: () => undefined }
    : { json: () => undefined, lines: (...lines) => lines.forEach((line) => io.out(line)), progress: (line) => io.err(line) };

  let reach: string | undefined;
  try {
    if (spec.queues) {
      const target = selectQueueTarget(values);
      reach = target.sqs;
      await queueRun[command]!(values, target, print);
    } else {
      // The domain services load only for the commands on records (the dlq-* commands and --help start without them).
      const { recordRun, selectTarget } = await import('./admin-records');
      const target = selectTarget(values, {
        writesEvents: spec.writesEvents === true,
        // Called before the environment points at AWS: a refusal reads and writes nothing there.
        beforeAws: (table) => {
          if (spec.localOnly) throw new ToolError(spec.localOnly);
          if (!spec.confirm || values.yes) return;
          checkIdFlags(values);
          throw new ConfirmationError(`${command} would ${spec.confirm(values)} on AWS table ${table}: pass --yes`);
        },
      });
      reach = target.dynamodb;
      checkIdFlags(values);
      await recordRun[command]!(values, target, print);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    if (error instanceof ConfirmationError) {
      io.err(`error: ${error.message}`);
      return 2;
    }
    const where = reach ?? (spec.queues ? 'SQS' : 'DynamoDB');
    if (error instanceof StoppedPartWay) {
      io.err(`error: ${oneLine(error.failure, where).replace(/\.$/, '')}; the deletion stopped part-way: run the same command again to finish`);
      return 1;
    }
    io.err(`error: ${oneLine(error, where)}`);
    return 1;
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true'; // the services it runs count nothing to CloudWatch from here
  const code = await runAdmin(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
