import { ipForKey } from '../../../src/keys/ip-subnet';

describe('ipForKey', () => {
  it.each([
    ['2001:db8:1:2ff:aaaa:bbbb:cccc:dddd', 56, '2001:db8:1:200::/56'],
    ['2001:db8:1:2ff:aaaa:bbbb:cccc:dddd', 64, '2001:db8:1:2ff::/64'],
    ['2001:db8:1:2ff:aaaa:bbbb:cccc:dddd', 128, '2001:db8:1:2ff:aaaa:bbbb:cccc:dddd/128'],
    ['2001:db8:1:2ff:aaaa:bbbb:cccc:dddd', 1, '::/1'],
    ['2001:db8:1:2ff:aaaa:bbbb:cccc:dddd', 2, '::/2'],
    ['a001:db8::1', 1, '8000::/1'],
    ['2001:db8::1', 56, '2001:db8::/56'],
    ['::1', 56, '::/56'],
    ['fe80::1:2:3:4%eth0', 64, 'fe80::/64'],
    ['64:ff9b::192.0.2.33', 96, '64:ff9b::/96'],
    ['64:ff9b::192.0.2.33', 128, '64:ff9b::c000:221/128'],
    ['2001:0:0:1:0:0:0:1', 128, '2001:0:0:1::1/128'],
  ])('%s /%d -> %s', (ip, subnet, expected) => {
    expect(ipForKey(ip, subnet)).toBe(expected);
  });

  it.each([
    ['2001:db8::1', false, '2001:db8::1'],
    ['203.0.113.7', 56, '203.0.113.7'],
    ['', 56, ''],
    ['not an address', 56, 'not an address'],
    ['1::2::3', 56, '1::2::3'],
    ['2001:db8::12345', 56, '2001:db8::12345'],
    ['2001:db8::g', 56, '2001:db8::g'],
    [':::', 56, ':::'],
    ['::ffff:1.2.3.256', 56, '::ffff:1.2.3.256'],
    ['1:2:3:4:5:6:7:8:9', 56, '1:2:3:4:5:6:7:8:9'],
  ])('%p with %p stays %p', (ip, subnet, expected) => {
    expect(ipForKey(ip, subnet as number | false)).toBe(expected);
  });
});
