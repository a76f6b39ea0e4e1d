import { featuresOf, HANDSHAKE_VERSIONS, isServedVersion, negotiateVersion, PROTOCOL_VERSION_META, requestedEra, VERSION_WITHOUT_HEADER } from '../../../src/protocol';

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

describe('eras', () => {
  it('places every served version in the handshake era', () => {
    expect(HANDSHAKE_VERSIONS.map((v) => featuresOf(v).era)).toEqual(HANDSHAKE_VERSIONS.map(() => 'handshake'));
  });

  it('reads the era a request asks for from the version in its _meta, served versions only', () => {
    expect(requestedEra({ _meta: { [PROTOCOL_VERSION_META]: '2024-11-05' } })).toBe('handshake');
    expect(requestedEra({ _meta: { [PROTOCOL_VERSION_META]: '2099-01-01' } })).toBeUndefined();
    expect(requestedEra({ _meta: { progressToken: 'p' } })).toBeUndefined();
    expect(requestedEra({})).toBeUndefined();
  });

  it('knows which versions it serves and what HTTP assumes without a header', () => {
    expect(HANDSHAKE_VERSIONS.every(isServedVersion)).toBe(true);
    expect([undefined, 42, '2026-07-28', '2025-11-25 '].some(isServedVersion)).toBe(false);
    expect(VERSION_WITHOUT_HEADER).toBe('2025-03-26');
  });
});
