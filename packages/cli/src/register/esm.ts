/** `node --import @typemcp/cli/dist/register/esm.js entry.ts`: registers ./esmHooks. */
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

process.setSourceMapsEnabled?.(true);
register(pathToFileURL(path.join(__dirname, 'esmHooks.js')).href);
