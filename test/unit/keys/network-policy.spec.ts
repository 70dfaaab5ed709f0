import { Test } from '@nestjs/testing';
import { LimiterConfigError, RateLimiterModule } from '../../../src';
import { NetworkPolicy } from '../../../src/keys/network-policy';
import { normalizeClientIp } from '../../../src/keys/client-ip';

describe('NetworkPolicy', () => {
  const policy = new NetworkPolicy({
    allow: ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1', '0.0.0.0/0'],
    deny: ['10.66.0.0/16', '2001:db8:dead::/48'],
  });

  it.each([
    ['10.255.255.255', 'allow'], // in 0.0.0.0/0 and 10/8, not in the denied 10.66/16
    ['10.66.3.4', 'deny'],
    ['192.168.1.7', 'allow'],
    ['2001:db8:1::1', 'allow'],
    ['2001:DB8:0:0:0:0:0:1', 'allow'],
    ['2001:db8:dead:1::1', 'deny'],
    ['2001:db9::1', undefined],
    ['::1', 'allow'],
    ['::2', undefined],
    ['', undefined],
    ['not-an-ip', undefined],
    ['fe80::1%eth0', undefined],
  ])('%s -> %s', (ip, verdict) => {
    expect(policy.verdictFor(ip)).toBe(verdict);
  });

  it('IPv4 networks of every prefix length match by their bits only', () => {
    const lists = new NetworkPolicy({ allow: ['172.16.0.0/12', '100.64.0.0/10', '8.8.8.8/32'] });
    expect(
      [
        '172.16.0.1',
        '172.31.255.255',
        '172.32.0.0',
        '100.127.1.1',
        '100.128.0.0',
        '8.8.8.8',
        '8.8.8.9',
      ].map((ip) => lists.verdictFor(ip)),
    ).toEqual(['allow', 'allow', undefined, 'allow', undefined, 'allow', undefined]);
  });

  it('reads an IPv4-mapped IPv6 entry as the IPv4 network, as clients are read', () => {
    const lists = new NetworkPolicy({
      deny: ['::ffff:198.51.100.0/120', '::FFFF:203.0.113.9', '::ffff:c000:200/120'],
    });
    expect(
      [
        '198.51.100.7',
        '::ffff:198.51.100.8',
        '198.51.101.1',
        '203.0.113.9',
        '203.0.113.10',
        '192.0.2.77',
      ].map((ip) => lists.verdictFor(normalizeClientIp(ip))),
    ).toEqual(['deny', 'deny', undefined, 'deny', undefined, 'deny']);
  });

  it('replaces its lists at run time, and keeps them when the new ones are wrong', () => {
    const live = new NetworkPolicy({ allow: ['10.0.0.0/8'] });
    expect(live.active).toBe(true);
    live.setLists({ deny: ['10.0.0.0/8'] });
    expect([live.verdictFor('10.1.1.1'), live.lists]).toEqual([
      'deny',
      { allow: [], deny: ['10.0.0.0/8'] },
    ]);
    expect(() => live.setLists({ allow: ['10.0.0.0/8'], deny: ['10.0.0.1/8'] })).toThrow(
      new LimiterConfigError(
        "NetworkPolicy.setLists: option 'deny[0]' must be a network in CIDR ('10.0.0.0/8', '2001:db8::/32') or an address: host bits are set (the network is 10.0.0.0/8), got '10.0.0.1/8'",
      ),
    );
    expect(live.verdictFor('10.1.1.1')).toBe('deny');
    live.setLists({});
    expect([live.active, live.verdictFor('10.1.1.1')]).toEqual([false, undefined]);
  });
});

describe('allow and deny at start-up', () => {
  const expected = "a network in CIDR ('10.0.0.0/8', '2001:db8::/32') or an address";
  it.each([
    [
      { allow: ['10.0.0.0/33'] },
      `'allow[0]' must be ${expected}: the prefix length 33 is over 32, got '10.0.0.0/33'`,
    ],
    [
      { allow: ['10.0.0.0/8', '300.0.0.1'] },
      `'allow[1]' must be ${expected}: '300.0.0.1' is no IPv4 or IPv6 address, got '300.0.0.1'`,
    ],
    [
      { deny: ['2001:db8::1/32'] },
      `'deny[0]' must be ${expected}: host bits are set below the /32 prefix, got '2001:db8::1/32'`,
    ],
    [
      { deny: ['::/129'] },
      `'deny[0]' must be ${expected}: the prefix length 129 is over 128, got '::/129'`,
    ],
    [
      { deny: ['10.0.0.0/x'] },
      `'deny[0]' must be ${expected}: the prefix length 'x' is not a number, got '10.0.0.0/x'`,
    ],
    [
      { deny: ['010.0.0.0/8'] },
      `'deny[0]' must be ${expected}: '010.0.0.0' is no IPv4 or IPv6 address, got '010.0.0.0/8'`,
    ],
    [{ deny: [42] }, `'deny[0]' must be ${expected}: not a string, got 42`],
    [{ allow: '10.0.0.0/8' }, `'allow' must be an array of networks in CIDR, got '10.0.0.0/8'`],
  ])('%j fails start-up naming the option and entry', async (lists, message) => {
    const moduleRef = Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(lists as never)],
    });
    await expect(moduleRef.compile()).rejects.toThrow(
      new LimiterConfigError(`RateLimiterModule: option ${message}`),
    );
  });
});
