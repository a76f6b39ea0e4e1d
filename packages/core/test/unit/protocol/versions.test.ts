import { featuresOf, HANDSHAKE_VERSIONS, negotiateVersion } from '../../../src/protocol';

describe('negotiateVersion', () => {
  it.each(HANDSHAKE_VERSIONS)('keeps the supported version %s', (version) => {
    expect(negotiateVersion(version)).toBe(version);
  });

  it.each(['2023-01-01', '2099-01-01', 42, undefined])('answers the newest for %p', (requested) => {
    expect(negotiateVersion(requested)).toBe('2025-11-25');
  });
});

describe('featuresOf', () => {
  it.each([
    ['completions', '2025-03-26'],
    ['progressMessage', '2025-03-26'],
    ['elicitation', '2025-06-18'],
    ['elicitationModes', '2025-11-25'],
    ['samplingTools', '2025-11-25'],
  ] as const)('dates %s from %s on', (feature, since) => {
    expect(HANDSHAKE_VERSIONS.filter((v) => featuresOf(v)[feature])).toEqual(HANDSHAKE_VERSIONS.filter((v) => v >= since));
  });

  it('allows batches only in 2025-03-26', () => {
    expect(HANDSHAKE_VERSIONS.filter((v) => featuresOf(v).batching)).toEqual(['2025-03-26']);
  });

  it('dates structured output and icons', () => {
    expect(featuresOf('2025-03-26').titlesAndStructuredOutput).toBe(false);
    expect(featuresOf('2025-06-18').titlesAndStructuredOutput).toBe(true);
    expect(featuresOf('2025-06-18').icons).toBe(false);
    expect(featuresOf('2025-11-25').icons).toBe(true);
    expect(featuresOf('2024-11-05').toolAnnotations).toBe(false);
  });
});
