import { HANDSHAKE_VERSIONS, isModernVersion, isServedVersion, MODERN_VERSIONS, revisionOf, SUPPORTED_VERSIONS, VERSION_WITHOUT_HEADER } from '../../../src/protocol';

describe('revisionOf', () => {
  it.each([
    ['completions', '2025-03-26'],
    ['progressMessage', '2025-03-26'],
    ['elicitation', '2025-06-18'],
    ['elicitationModes', '2025-11-25'],
    ['samplingTools', '2025-11-25'],
    ['tasks', '2025-11-25'],
  ] as const)('dates %s from %s on', (feature, since) => {
    expect(HANDSHAKE_VERSIONS.filter((v) => revisionOf(v)[feature])).toEqual(HANDSHAKE_VERSIONS.filter((v) => v >= since));
    expect(revisionOf('2026-07-28')[feature]).toBe(true);
  });

  it('allows batches only in 2025-03-26', () => {
    expect([...HANDSHAKE_VERSIONS, ...MODERN_VERSIONS].filter((v) => revisionOf(v).batching)).toEqual(['2025-03-26']);
  });

  it('dates structured output and icons', () => {
    expect(revisionOf('2025-03-26').titlesAndStructuredOutput).toBe(false);
    expect(revisionOf('2025-06-18').titlesAndStructuredOutput).toBe(true);
    expect(revisionOf('2025-06-18').icons).toBe(false);
    expect(revisionOf('2025-11-25').icons).toBe(true);
    expect(revisionOf('2024-11-05').toolAnnotations).toBe(false);
  });

  it('keeps 2025-11-25 task augmentation and elicitation ids to 2025-11-25 (2026-07-28 replaced them)', () => {
    expect([...HANDSHAKE_VERSIONS, ...MODERN_VERSIONS].filter((v) => revisionOf(v).taskAugmentation)).toEqual(['2025-11-25']);
    expect([...HANDSHAKE_VERSIONS, ...MODERN_VERSIONS].filter((v) => revisionOf(v).elicitationIds)).toEqual(['2025-11-25']);
  });

  it('is one frozen object per version', () => {
    expect(revisionOf('2025-06-18')).toBe(revisionOf('2025-06-18'));
    expect(Object.isFrozen(revisionOf('2025-06-18'))).toBe(true);
  });

  it('places the handshake versions in the handshake era and 2026-07-28 in the modern one', () => {
    expect(HANDSHAKE_VERSIONS.map((v) => revisionOf(v).era)).toEqual(HANDSHAKE_VERSIONS.map(() => 'handshake'));
    expect(MODERN_VERSIONS.map((v) => revisionOf(v).era)).toEqual(['modern']);
    expect(SUPPORTED_VERSIONS).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  });

  it('knows which versions it serves and what HTTP assumes without a header', () => {
    expect(HANDSHAKE_VERSIONS.every(isServedVersion)).toBe(true);
    expect([undefined, 42, '2026-07-28', '2025-11-25 '].some(isServedVersion)).toBe(false);
    expect(isModernVersion('2026-07-28')).toBe(true);
    expect(isModernVersion('2025-11-25')).toBe(false);
    expect(VERSION_WITHOUT_HEADER).toBe('2025-03-26');
  });
});
