/** scripts/test-services.js: what `npm test` does when a service its suites need is missing. */
const { plan } = require('../../../../scripts/test-services') as {
  plan(input: { missing: string[]; isRoot: boolean; hasAptGet: boolean; ci: boolean }): { install: string[]; skip: string[]; fail?: string; command?: string };
};

describe('the services the tests need', () => {
  it('needs nothing when everything is there', () => {
    expect(plan({ missing: [], isRoot: false, hasAptGet: false, ci: true })).toEqual({ install: [], skip: [], fail: undefined });
  });

  it('installs what is missing as root with apt-get', () => {
    expect(plan({ missing: ['redis-server', 'chromium'], isRoot: true, hasAptGet: true, ci: true })).toMatchObject({ install: ['redis-server', 'chromium'], skip: [] });
  });

  it('fails under CI rather than skip', () => {
    const outcome = plan({ missing: ['redis-server'], isRoot: false, hasAptGet: true, ci: true });
    expect(outcome.skip).toEqual([]);
    expect(outcome.fail).toBe('CI=true and redis-server missing: the @typemcp/redis, cluster and guards-on-Redis suites cannot run. Install: apt-get install redis-server');
  });

  it('skips only the suites of what is missing elsewhere, and says how to install it', () => {
    expect(plan({ missing: ['chromium'], isRoot: false, hasAptGet: false, ci: false })).toMatchObject({
      install: [],
      skip: ['examples/06-apps/test/browser.test.ts', 'packages/core/test/docs/site.browser.test.ts', 'examples/09-signin/test/', 'packages/redis/test/signin.replicas.test.ts', 'packages/auth/test/signin/upstream/oidc.browser.test.ts', 'packages/cli/test/devInspect.browser.test.ts'],
      command: 'apt-get install chromium',
    });
    expect(plan({ missing: ['redis-server'], isRoot: true, hasAptGet: false, ci: false }).skip).toEqual(['packages/redis/test/', 'examples/04-cluster/test/', 'packages/guards/test/probe.cache.test.ts', 'packages/guards/test/probe.limits.test.ts']);
  });
});
