/** The user's answer to an elicitation: accepted with content, declined, or cancelled. */
export type ElicitationResult<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };
