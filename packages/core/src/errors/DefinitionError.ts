import { brand } from './brand';
/**
 * A mistake in how a server is declared (decorators, DTOs, options), found at startup.
 * `code` names the kind of mistake; the message names the class, member and fix.
 */
export class DefinitionError extends Error {
  constructor(
    readonly code: DefinitionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DefinitionError';
  }
}

/** The kinds of declaration mistake (`DefinitionError.code`), for code and tests that tell them apart. */
export type DefinitionErrorCode =
  | 'TOOL_INPUT_UNKNOWN'
  | 'TOOL_INPUT_NOT_A_CLASS'
  | 'DUPLICATE_NAME'
  | 'UNSUPPORTED_PROPERTY_TYPE'
  | 'INVALID_OPTION'
  | 'EXPERIMENTAL_DECORATORS_REQUIRED'
  | 'PROVIDER_DEPENDENCIES_UNKNOWN'
  | 'PLUGIN_DEPENDENCY_MISSING'
  | 'INVALID_SKILL'
  | 'VALIDATOR_NOT_PRECOMPILED';

brand(DefinitionError, 'DefinitionError');
