import { overrideOf } from '../../../src/admin/admin-requests';
import { parseCidr } from '../../../src/keys/cidr';

const isCidr = (text: string) => typeof parseCidr(text) !== 'string';
import { LiveSettings, parseOverrides } from '../../../src/admin/live-settings';
import { MemorySettingsStore } from '../../../src/admin/settings-store';

describe('CIDR networks the admin API accepts', () => {
  it.each([
    '10.0.0.0/8',
    '192.168.1.7',
    '2001:db8::/32',
    '::1',
    '::/0',
    '0.0.0.0/0',
    '::ffff:1.2.3.4/128',
  ])('accepts %s', (network) => expect(isCidr(network)).toBe(true));
  it.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0/8',
    '10.0.0.0/',
    '10.0.0.0/8/1',
    'x',
    '',
    '256.0.0.1',
    'fe80::1%eth0',
    '1.2.3.4/+8',
  ])('refuses %s', (network) => expect(isCidr(network)).toBe(false));
});

describe('overrides', () => {
  it('keep only those not expired, by name, and ignore fields that are not theirs', () => {
    const fields = {
      b: JSON.stringify({ options: { limit: 5 }, expiresAtMs: 2000 }),
      a: JSON.stringify({ options: { period: 60 }, expiresAtMs: 3000 }),
      old: JSON.stringify({ options: { limit: 1 }, expiresAtMs: 1000 }),
      junk: 'not json',
      array: JSON.stringify({ options: [1], expiresAtMs: 9000 }),
    };
    expect(parseOverrides(fields, 1000)).toEqual([
      { name: 'a', options: { period: 60 }, expiresAtMs: 3000 },
      { name: 'b', options: { limit: 5 }, expiresAtMs: 2000 },
    ]);
  });

  it('refuse a body whose options are not numbers or durations', () => {
    expect(() => overrideOf({ options: { limit: { $gt: 1 } }, ttl: 5 })).toThrow(
      "option 'limit' must be a number or a duration string",
    );
    expect(overrideOf({ options: { period: '1m', block: [60, 300] }, ttl: 5 })).toEqual({
      options: { period: '1m', block: [60, 300] },
      ttlSeconds: 5,
    });
  });

  it('are published to listeners when they change, once per change', async () => {
    const store = new MemorySettingsStore();
    const settings = new LiveSettings(store);
    const seen: string[][] = [];
    settings.onOverrides((overrides) => seen.push(overrides.map((o) => o.name)));
    const expiresAtMs = Date.now() + 60_000;
    await store.writeOverride('login', JSON.stringify({ options: { limit: 3 }, expiresAtMs }));
    await settings.refresh();
    await settings.refresh();
    await store.writeOverride('login', undefined);
    await settings.refresh();
    expect(seen).toEqual([[], ['login'], []]);
  });
});
