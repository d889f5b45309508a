/** Runs `run` with the environment variables `values` set (undefined: unset), then puts back what was there. */
export const withEnv = async <T>(values: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> => {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  try {
    return await run();
  } finally {
    apply(previous);
  }
};
