/**
 * Makes an error without capturing a stack trace: for errors that signal an expected end (a
 * round answered with input_required) on a path taken every round, where the trace would
 * cost more than the rest of the error and say nothing.
 */
export function withoutStack<T extends Error>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
