import { featuresOf, HANDSHAKE_VERSIONS, isModernVersion, isServedVersion, MODERN_VERSIONS, SUPPORTED_VERSIONS, negotiateVersion, PROTOCOL_VERSION_META, requestedEra, VERSION_WITHOUT_HEADER } from '../../../src/protocol';

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
  it('places the handshake versions in the handshake era and 2026-07-28 in the modern one', () => {
    expect(HANDSHAKE_VERSIONS.map((v) => featuresOf(v).era)).toEqual(HANDSHAKE_VERSIONS.map(() => 'handshake'));
    expect(MODERN_VERSIONS.map((v) => featuresOf(v).era)).toEqual(['modern']);
    expect(SUPPORTED_VERSIONS).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  });

  it('reads the era a request asks for from the presence of a version in its _meta', () => {
    // Any version named there asks for the modern era; one it does not serve is refused there (-32022).
    expect(requestedEra({ _meta: { [PROTOCOL_VERSION_META]: '2026-07-28' } })).toBe('modern');
    expect(requestedEra({ _meta: { [PROTOCOL_VERSION_META]: '2099-01-01' } })).toBe('modern');
    expect(requestedEra({ _meta: { progressToken: 'p' } })).toBeUndefined();
    expect(requestedEra({ _meta: null })).toBeUndefined();
    expect(requestedEra({})).toBeUndefined();
  });

  it('turns on the 2026-07-28 behaviours in that version only', () => {
    for (const version of HANDSHAKE_VERSIONS) expect(featuresOf(version)).toMatchObject({ modernErrors: false, resultTypes: false });
    expect(featuresOf('2026-07-28')).toMatchObject({ modernErrors: true, resultTypes: true, elicitationIds: false, batching: false });
    expect(featuresOf('2025-11-25').elicitationIds).toBe(true);
    expect(isModernVersion('2026-07-28')).toBe(true);
    expect(isModernVersion('2025-11-25')).toBe(false);
  });

  it('knows which versions it serves and what HTTP assumes without a header', () => {
    expect(HANDSHAKE_VERSIONS.every(isServedVersion)).toBe(true);
    expect([undefined, 42, '2026-07-28', '2025-11-25 '].some(isServedVersion)).toBe(false);
    expect(VERSION_WITHOUT_HEADER).toBe('2025-03-26');
  });
});
