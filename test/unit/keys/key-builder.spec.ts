import { createHash } from 'node:crypto';
import {
  boundKeyPart,
  compileKeyPart,
  customKeyPart,
  escapeKeyText,
  keyPart,
  MAX_KEY_PART_LENGTH,
} from '../../../src/keys/key-builder';
import { LimitType } from '../../../src/contracts/limit-type.enum';

const HANDLER = 'SmsController.send';
const KIND = 'countLimit';
// sha1 of 300 'a' characters, computed independently with `printf 'a%.0s' {1..300} | sha1sum`.
const SHA1_OF_300_A = '003ef1ba9ea9f2f4dab3a2004e505ca8a4e7e5a3';

describe('LimitType', () => {
  it('has string values equal to the names', () => {
    expect(Object.entries(LimitType)).toEqual([
      ['IP', 'IP'],
      ['USER', 'USER'],
      ['METHOD', 'METHOD'],
      ['CUSTOM', 'CUSTOM'],
    ]);
  });
});

describe('keyPart', () => {
  it('METHOD: the handler name only', () => {
    expect(keyPart(LimitType.METHOD, HANDLER, { ip: '1.2.3.4', userId: 9 }, KIND)).toBe(
      '~SmsController.send',
    );
  });

  it('IP: the handler name and the client ip', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '1.2.3.4' }, KIND)).toBe(
      '~SmsController.send:1.2.3.4',
    );
  });

  it('IP: an IPv6 address is kept with its colons', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '2001:db8::1' }, KIND)).toBe(
      '~SmsController.send:2001:db8::1',
    );
  });

  it('IP: an IPv4-mapped IPv6 address counts as the IPv4 address', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '::ffff:127.0.0.1' }, KIND)).toBe(
      '~SmsController.send:127.0.0.1',
    );
  });

  it('USER: the handler name and the user id', () => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 'alice' }, KIND)).toBe(
      '~SmsController.send:alice',
    );
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 42 }, KIND)).toBe(
      '~SmsController.send:42',
    );
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 0 }, KIND)).toBe(
      '~SmsController.send:0',
    );
  });

  it.each([undefined, null, ''])('USER: anonymous (userId %p) falls back to ip:<ip>', (userId) => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '::ffff:10.0.0.5', userId }, KIND)).toBe(
      '~SmsController.send:ip:10.0.0.5',
    );
  });

  it('CUSTOM: the evaluated template, as is when it has nothing to escape', () => {
    expect(keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4', custom: 'sms:+123' }, KIND)).toBe(
      'sms:+123',
    );
  });

  it('CUSTOM: without an evaluated template is a programming error', () => {
    expect(() => keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4' }, KIND)).toThrow(
      'A CUSTOM limit on SmsController.send needs its evaluated key template',
    );
  });

  it('refuses an unknown limit type from untyped code', () => {
    expect(() => keyPart('BOGUS' as LimitType, HANDLER, { ip: '1.2.3.4' }, KIND)).toThrow(
      "Unknown limitType 'BOGUS' on SmsController.send",
    );
  });

  it('hashes a part longer than 256 characters', () => {
    const custom = 'k'.repeat(300);
    const part = keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4', custom }, KIND);
    expect(part).toBe(`%#countLimit:${createHash('sha1').update(custom).digest('hex')}`);
  });
});

describe('boundKeyPart', () => {
  it('keeps a part of exactly 256 characters', () => {
    const part = 'a'.repeat(256);
    expect(MAX_KEY_PART_LENGTH).toBe(256);
    expect(boundKeyPart(part, KIND)).toBe(part);
  });

  it('replaces a 257-character part by %#, its kind and its SHA-1 hex', () => {
    expect(boundKeyPart('a'.repeat(257), KIND)).toBe(
      `%#countLimit:${createHash('sha1').update('a'.repeat(257)).digest('hex')}`,
    );
  });

  it('replaces a 300-character part by a bounded one', () => {
    const hashed = boundKeyPart('x'.repeat(300), KIND);
    expect(hashed).toHaveLength('%#countLimit:'.length + 40);
  });

  it('hashes a known value to the known digest', () => {
    expect(boundKeyPart('a'.repeat(300), KIND)).toBe(`%#countLimit:${SHA1_OF_300_A}`);
  });

  it('two kinds hash one long part to two keys', () => {
    expect(boundKeyPart('a'.repeat(300), 'slidingWindowLimit')).toBe(
      `%#slidingWindowLimit:${SHA1_OF_300_A}`,
    );
  });
});

describe('compileKeyPart', () => {
  // Handler names at, below and above the bound, with characters that are escaped.
  const handlers = [HANDLER, 'A{b}.c~d%e', 'H.'.padEnd(250, 'x'), 'H.'.padEnd(260, '%')];
  const ips = [
    '1.2.3.4',
    '001.2.3.4',
    '2001:db8::/56',
    '[::1]:80',
    '',
    'weird{~%}',
    'x'.repeat(300),
  ];
  const userIds: (string | number | null | undefined)[] = [
    undefined,
    null,
    '',
    0,
    42,
    'u{1}~%',
    'u'.repeat(300),
  ];

  it.each(handlers)('builds what keyPart builds for an IP limit on %p', (handler) => {
    const part = compileKeyPart(LimitType.IP, handler, KIND);
    for (const ip of ips) {
      expect(part(ip)).toBe(keyPart(LimitType.IP, handler, { ip }, KIND));
    }
  });

  it.each(handlers)('builds what keyPart builds for a USER limit on %p', (handler) => {
    const part = compileKeyPart(LimitType.USER, handler, KIND);
    for (const ip of ips) {
      for (const userId of userIds) {
        expect(part(ip, userId)).toBe(keyPart(LimitType.USER, handler, { ip, userId }, KIND));
      }
    }
  });

  it('hashes a long part as keyPart does: the marker, then the hashed part', () => {
    const part = compileKeyPart(LimitType.IP, HANDLER, KIND)('x'.repeat(300));
    const text = `${HANDLER}:${'x'.repeat(300)}`;
    expect(part).toBe(`~%#countLimit:${createHash('sha1').update(text).digest('hex')}`);
  });
});

describe('key namespaces', () => {
  it('escapes %, braces and ~ one-to-one in template and factory keys', () => {
    expect(escapeKeyText('a{b}c~d%e')).toBe('a%7Bb%7Dc%7Ed%25e');
    expect(escapeKeyText('%7B')).toBe('%257B');
    expect(escapeKeyText('sms:+1 555')).toBe('sms:+1 555');
    expect(customKeyPart('{tag}', KIND)).toBe('%7Btag%7D');
  });

  it('a derived part keeps its marker when hashed; a hashed custom part starts with %#', () => {
    const user = 'u'.repeat(300);
    const derived = keyPart(LimitType.USER, HANDLER, { ip: '', userId: user }, KIND);
    const digest = createHash('sha1').update(`${HANDLER}:${user}`).digest('hex');
    expect(derived).toBe(`~%#countLimit:${digest}`);
    expect(customKeyPart('k'.repeat(300), KIND)).toMatch(/^%#countLimit:[0-9a-f]{40}$/);
  });

  it('no client value makes a part kept as is equal to a hashed one', () => {
    const hashed = customKeyPart('k'.repeat(300), KIND);
    for (const value of [hashed, hashed.slice(2), hashed.slice(hashed.indexOf(':') + 1)]) {
      expect(customKeyPart(value, 'slidingWindowLimit')).not.toBe(hashed);
      expect(customKeyPart(value, KIND)).not.toBe(hashed);
    }
  });

  it('no client value makes a custom part equal to a derived one', () => {
    const ipPart = keyPart(LimitType.IP, HANDLER, { ip: '127.0.0.1' }, KIND);
    for (const value of [
      ipPart,
      ipPart.slice(1),
      `~${ipPart}`,
      '%7ESmsController.send:127.0.0.1',
    ]) {
      expect(customKeyPart(value, KIND)).not.toBe(ipPart);
    }
    const long = keyPart(LimitType.USER, HANDLER, { ip: '', userId: 'u'.repeat(300) }, KIND);
    expect(customKeyPart(long.slice(1), KIND)).not.toBe(long);
  });

  it('derived parts escape braces too (a user id cannot pick a Cluster slot)', () => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '', userId: '{x}' }, KIND)).toBe(
      '~SmsController.send:%7Bx%7D',
    );
  });
});
