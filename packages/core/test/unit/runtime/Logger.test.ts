import { createLogger, isLoggingLevel, passes, RateLimiter } from '../../../src/runtime/Logger';

describe('logging helpers', () => {
  it('creates one method per RFC 5424 level', () => {
    const sink = jest.fn();
    const log = createLogger(sink);
    log.emergency({ a: 1 }, 'db');
    log.debug('x');
    expect(sink.mock.calls).toEqual([
      ['emergency', { a: 1 }, 'db'],
      ['debug', 'x', undefined],
    ]);
  });

  it('orders levels by severity', () => {
    expect(passes('error', 'warning')).toBe(true);
    expect(passes('warning', 'warning')).toBe(true);
    expect(passes('notice', 'warning')).toBe(false);
    expect(passes('emergency', 'debug')).toBe(true);
    expect(isLoggingLevel('notice')).toBe(true);
    expect(isLoggingLevel('verbose')).toBe(false);
    expect(isLoggingLevel('constructor')).toBe(false);
  });

  it('lets a burst through, then refills over time', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const limiter = new RateLimiter(10, 20);
      let passed = 0;
      for (let i = 0; i < 50; i++) if (limiter.take()) passed++;
      expect(passed).toBe(20);
      jest.setSystemTime(500);
      passed = 0;
      for (let i = 0; i < 50; i++) if (limiter.take()) passed++;
      expect(passed).toBe(5);
    } finally {
      jest.useRealTimers();
    }
  });
});
