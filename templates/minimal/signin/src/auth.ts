import { developmentLogin } from '@typemcp/auth';
import type { Authenticate } from '@typemcp/auth';

/** The development login's users, username to password (and the name the consent page shows). */
export const DEVELOPMENT_USERS = {
  alice: { password: 'alice', name: 'Alice' },
  bob: { password: 'bob', name: 'Bob' },
};

/**
 * Who signs in while you try it out: a login form whose users and passwords are here in the
 * code. Replace it with your application's session before deploying (README.md, "Before
 * production").
 */
export const authenticate: Authenticate = developmentLogin({ users: DEVELOPMENT_USERS });

/** Known to anyone who reads this file: fine on 127.0.0.1, never anywhere else. */
export const DEVELOPMENT_SECRET = 'development only: set SIGNIN_SECRET (32 characters or more) anywhere else';

/** SIGNIN_SECRET, or the development secret with a warning on stderr. */
export function signInSecret(env: NodeJS.ProcessEnv = process.env, warn: (line: string) => void = (line) => process.stderr.write(line)): string {
  const secret = env.SIGNIN_SECRET;
  if (secret === undefined || secret === '') {
    warn('warning: SIGNIN_SECRET is not set; using a development secret. Set it (32 characters or more) anywhere but your own machine.\n');
    return DEVELOPMENT_SECRET;
  }
  if (secret.length < 32) throw new Error('SIGNIN_SECRET must be 32 characters or more');
  return secret;
}
