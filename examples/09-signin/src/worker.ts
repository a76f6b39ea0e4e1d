import type { FetchHandler } from '@typemcp/core';
import { durableObjectSignInStore, SignInStoreObject } from './DurableObjectSignInStore';
import type { DurableObjectNamespace } from './DurableObjectSignInStore';
import { notesFromEnvironment } from './environment';

// The Durable Object class, exported from the Worker's module as wrangler.toml binds it.
export { SignInStoreObject };

interface Env {
  /** The Worker's public origin, e.g. https://notes.example.workers.dev: tokens are issued for `${ORIGIN}/mcp`. */
  ORIGIN?: string;
  /** `npx wrangler secret put SIGNIN_SECRET` (.dev.vars locally): 32+ characters. */
  SIGNIN_SECRET?: string;
  ACCESS_TOKEN_TTL_SEC?: string;
  SIGNIN_STORE: DurableObjectNamespace;
}

let handler: FetchHandler | undefined;

/**
 * Cloudflare Workers: the server is made on the isolate's first request, from the Worker's env
 * (nothing at module scope: a Worker may not make random values there). What sign-in keeps is
 * in one Durable Object, shared by every isolate; the notes themselves stay in the isolate.
 */
export default {
  fetch(request: Request, env: Env): Promise<Response> {
    if (handler === undefined) {
      if (env.ORIGIN === undefined) throw new Error("signin-notes: set ORIGIN (wrangler.toml [vars]) to the Worker's public origin: the tokens name it");
      const { server, origin } = notesFromEnvironment((name) => (name === 'PORT' ? undefined : (env as unknown as Record<string, string | undefined>)[name]), { store: durableObjectSignInStore(env.SIGNIN_STORE) });
      handler = server.fetchHandler({ stateless: true, allowedHosts: [new URL(origin).hostname] });
    }
    return handler(request);
  },
};
