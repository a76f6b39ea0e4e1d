import { brand } from './brand';
/**
 * A sampling request breaks the protocol's rules (message structure, tool results, required
 * fields). Raised by the server before anything is sent.
 */
export class SamplingRuleError extends Error {
  readonly code = 'SAMPLING_RULE_VIOLATION';

  constructor(message: string) {
    super(message);
    this.name = 'SamplingRuleError';
  }
}

brand(SamplingRuleError, 'SamplingRuleError');
