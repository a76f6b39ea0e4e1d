// The packages published from this repository, in the order they are published (a package's
// @typemcp/* dependencies before it), with their folders.
const PUBLISHED = ['core', 'client', 'testing', 'cli', 'auth', 'opentelemetry', 'guards', 'redis', 'proxy', 'openapi', 'create-typemcp'];

module.exports = { PUBLISHED };
