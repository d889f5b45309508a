import { parseArgs } from 'node:util';

/** One option of a tool's command line, with the line its usage prints. */
export type CliOption = { description: string } & ({ type: 'string'; default?: string } | { type: 'boolean' });

/** The parsed values: a boolean per flag, the text of each string option (its default when not given). */
export type CliValues<O extends Record<string, CliOption>> = {
  [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined;
};

export interface CliSpec<O extends Record<string, CliOption>> {
  /** The npm script, e.g. `bench:scale`. */
  command: string;
  /** What the tool does, one or two sentences. */
  summary: string;
  options: O;
}

/** The usage text: the command, what it does and every option with its default. */
export const cliUsage = <O extends Record<string, CliOption>>({ command, summary, options }: CliSpec<O>): string => {
  const rows = [
    ...Object.entries(options).map(([name, option]) => {
      const shown = `--${name}${option.type === 'string' ? ' <value>' : ''}`;
      const fallback = option.type === 'string' && option.default !== undefined ? ` (default ${option.default})` : '';
      return [shown, `${option.description}${fallback}`] as const;
    }),
    ['--help', 'prints this text'] as const,
  ];
  const width = Math.max(...rows.map(([shown]) => shown.length)) + 2;
  return [`Usage: npm run ${command} -- [options]`, '', summary, '', 'Options:', ...rows.map(([shown, text]) => `  ${shown.padEnd(width)}${text}`)].join('\n');
};

/** Reads argv against the spec: the values, the usage asked for with --help, or what is wrong with them. */
export const parseCli = <O extends Record<string, CliOption>>(spec: CliSpec<O>, argv: string[]): { values: CliValues<O> } | { help: string } | { error: string } => {
  if (argv.includes('--help') || argv.includes('-h')) return { help: cliUsage(spec) };
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, option]) => [name, option.type === 'string' ? { type: 'string' as const, ...(option.default !== undefined && { default: option.default }) } : { type: 'boolean' as const, default: false }]),
  );
  try {
    return { values: parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as CliValues<O> };
  } catch (error) {
    return { error: `${(error as Error).message}\n\n${cliUsage(spec)}` };
  }
};

/** The tool's options from process.argv: prints the usage and exits 0 on --help, 2 on an unknown or malformed option. */
export const readCli = <O extends Record<string, CliOption>>(spec: CliSpec<O>): CliValues<O> => {
  const parsed = parseCli(spec, process.argv.slice(2));
  if ('help' in parsed) {
    console.log(parsed.help);
    process.exit(0);
  }
  if ('error' in parsed) {
    console.error(parsed.error);
    process.exit(2);
  }
  return parsed.values;
};
