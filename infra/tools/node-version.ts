/**
 * The AWS SDK warns, in eight lines, in every process on Node.js older than 22 (it will require
 * 22 in 2027). The project runs on 22 (README: Quick start); where a tool runs on an older Node.js
 * anyway, this says so once, in one line, and turns the SDK's warning off for this process and the
 * processes it starts (they inherit the environment, so they stay quiet too).
 * Imported first by the entry points: npm start, npm run admin, npm run invoke, npm run bench.
 */
export const sdkWarningVariable = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

export const nodeVersionNotice = (version: string, env: NodeJS.ProcessEnv): string | undefined => {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= 22 || env[sdkWarningVariable] === 'true') return undefined;
  env[sdkWarningVariable] = 'true';
  return `note: running on Node.js ${version}; the project runs on Node.js 22 (npm scripts use the one npm install fetched). The AWS SDK's Node.js-version warning is shown once, here.`;
};

const notice = nodeVersionNotice(process.version, process.env);
if (notice) console.warn(notice);
