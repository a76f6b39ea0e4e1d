/**
 * The official MCP JSON Schemas as the test oracle. The checker and the schema copies live in
 * @typemcp/testing (packages/testing/schemas), which servers' own tests use too; this folder
 * keeps the 2026-07-28 example messages (spec/<version>/examples) as test data.
 */
import path from 'node:path';

export {
  SUPPORTED_SPEC_VERSIONS,
  MODERN_SPEC_VERSION,
  ALL_SPEC_VERSIONS,
  schemaFile,
  validateServerMessage,
  expectValidServerMessages,
} from '../packages/testing/src/schemaCheck';
export type { SpecVersion, ServerMessageOptions, RecordedServerMessage } from '../packages/testing/src/schemaCheck';

/** Where the example messages of each revision are kept (spec/<version>/examples). */
export const SPEC_DIR = path.resolve(__dirname, 'spec');
