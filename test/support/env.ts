/** Sets the environment variables `values` (undefined: unset); answers what they were, to put back with the same function. */
export const applyEnv = (values: Record<string, string | undefined>): Record<string, string | undefined> => {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return previous;
};

/** Runs `run` with the environment variables `values` set (undefined: unset), then puts back what was there. */
export const withEnv = async <T>(values: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> => {
  const previous = applyEnv(values);
  try {
    return await run();
  } finally {
    applyEnv(previous);
  }
};
