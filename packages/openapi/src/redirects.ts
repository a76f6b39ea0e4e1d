/** What a call (send.ts) and a document read (load.ts) both follow of redirects. */

/** At most this many redirects are followed for one call or one document read. */
export const MAX_REDIRECTS = 5;

/** The statuses that redirect: the answer's `location` is followed, not its body read. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
