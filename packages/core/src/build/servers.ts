import { SERVER_COLLECTOR_KEY } from '../constants';
import type { ServerDeclaration } from '../server/options';
import { provideInertHost } from './collect';

/**
 * The identity of every server the application makes while `load` imports it (name, version,
 * title, description, website, icons, environment), in the order made, for `typemcp registry
 * init`. Its servers do not serve meanwhile. A server made only on a first request is not heard.
 */
export async function collectServers(load: () => unknown): Promise<ServerDeclaration[]> {
  const slots = globalThis as { [SERVER_COLLECTOR_KEY]?: ServerDeclaration[] };
  const heard: ServerDeclaration[] = (slots[SERVER_COLLECTOR_KEY] = []);
  provideInertHost();
  try {
    await load();
  } finally {
    delete slots[SERVER_COLLECTOR_KEY];
  }
  return heard;
}
