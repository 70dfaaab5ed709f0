import { normalizeClientIp } from '../../../src/keys/client-ip';
import { ipForKey } from '../../../src/keys/ip-subnet';

describe('normalizeClientIp', () => {
  it.each([
    // IPv4: decimal, no leading zeros, no port.
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['10.0.200.9', '10.0.200.9'],
    ['1.2.3.04', '1.2.3.4'],
    ['1.02.3.4', '1.2.3.4'],
    ['1.2.3.00', '1.2.3.0'],
    ['001.002.003.004', '1.2.3.4'],
    ['1.2.3.010', '1.2.3.10'],
    ['9.9.9.9:50001', '9.9.9.9'],
    ['01.2.3.4:8080', '1.2.3.4'],
    [' 9.9.9.9 ', '9.9.9.9'],
    // IPv4-mapped IPv6, any spelling: the IPv4 address.
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:192.168.1.2', '192.168.1.2'],
    ['::ffff:102:304', '1.2.3.4'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:0102:0304', '1.2.3.4'],
    ['[::ffff:1.2.3.4]:443', '1.2.3.4'],
    // IPv6: brackets and port dropped, RFC 5952 spelling.
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::1', '::1'],
    ['64:ff9b::1.2.3.4', '64:ff9b::102:304'],
  ])('%p -> %p', (raw, expected) => {
    expect(normalizeClientIp(raw)).toBe(expected);
  });

  it.each([
    '',
    'not an address',
    '1.2.3.256',
    '1.2.3',
    '1.2.3.4.5',
    '1..2.3',
    '.1.2.3',
    '1.2.3.',
    '1.2.3.1000',
    '1.2.3.4a',
    '::ffff:',
    '1::2::3',
    '[nope]',
    'a:b:c',
  ])('leaves %p as given: no address', (raw) => {
    expect(normalizeClientIp(raw)).toBe(raw);
  });

  it('an IPv4-mapped client is keyed as IPv4, not by the ::/56 network', () => {
    expect(ipForKey(normalizeClientIp('::ffff:102:304'), 56)).toBe('1.2.3.4');
    expect(ipForKey(normalizeClientIp('::ffff:506:708'), 56)).toBe('5.6.7.8');
  });
});
