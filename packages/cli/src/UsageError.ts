/** A mistake in how the command was called: reported with exit code 2 and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
