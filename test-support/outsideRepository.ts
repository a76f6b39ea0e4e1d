import { spawnSync } from 'node:child_process';

/**
 * The environment of a command run in a project outside the repository, as a user runs it:
 * nothing that ties npm to this repository or to the test runner.
 */
export function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|INIT_CWD$|JEST_WORKER_ID$|NODE_OPTIONS$)/i.test(key)) env[key] = value;
  }
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1' };
}

/** Runs a command there; its stdout, or an error with everything it printed. */
export function runOutside(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: outsideEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}
