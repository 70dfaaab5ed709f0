import { createHash } from 'node:crypto';
import {
  boundKeyPart,
  customKeyPart,
  escapeKeyText,
  keyPart,
  MAX_KEY_PART_LENGTH,
  normalizeIp,
} from '../../../src/keys/key-builder';
import { LimitType } from '../../../src/keys/limit-type.enum';

const HANDLER = 'SmsController.send';
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
    expect(keyPart(LimitType.METHOD, HANDLER, { ip: '1.2.3.4', userId: 9 })).toBe(
      '~SmsController.send',
    );
  });

  it('IP: the handler name and the client ip', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '1.2.3.4' })).toBe('~SmsController.send:1.2.3.4');
  });

  it('IP: an IPv6 address is kept with its colons', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '2001:db8::1' })).toBe(
      '~SmsController.send:2001:db8::1',
    );
  });

  it('IP: an IPv4-mapped IPv6 address counts as the IPv4 address', () => {
    expect(keyPart(LimitType.IP, HANDLER, { ip: '::ffff:127.0.0.1' })).toBe(
      '~SmsController.send:127.0.0.1',
    );
  });

  it('USER: the handler name and the user id', () => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 'alice' })).toBe(
      '~SmsController.send:alice',
    );
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 42 })).toBe(
      '~SmsController.send:42',
    );
    expect(keyPart(LimitType.USER, HANDLER, { ip: '1.2.3.4', userId: 0 })).toBe(
      '~SmsController.send:0',
    );
  });

  it.each([undefined, null, ''])('USER: anonymous (userId %p) falls back to ip:<ip>', (userId) => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '::ffff:10.0.0.5', userId })).toBe(
      '~SmsController.send:ip:10.0.0.5',
    );
  });

  it('CUSTOM: the evaluated template, as is when it has nothing to escape', () => {
    expect(keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4', custom: 'sms:+123' })).toBe(
      'sms:+123',
    );
  });

  it('CUSTOM: without an evaluated template is a programming error', () => {
    expect(() => keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4' })).toThrow(
      'A CUSTOM limit on SmsController.send needs its evaluated key template',
    );
  });

  it('refuses an unknown limit type from untyped code', () => {
    expect(() => keyPart('BOGUS' as LimitType, HANDLER, { ip: '1.2.3.4' })).toThrow(
      "Unknown limitType 'BOGUS' on SmsController.send",
    );
  });

  it('hashes a part longer than 256 characters', () => {
    const custom = 'k'.repeat(300);
    const part = keyPart(LimitType.CUSTOM, HANDLER, { ip: '1.2.3.4', custom });
    expect(part).toBe(createHash('sha1').update(custom).digest('hex'));
    expect(part).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('boundKeyPart', () => {
  it('keeps a part of exactly 256 characters', () => {
    const part = 'a'.repeat(256);
    expect(MAX_KEY_PART_LENGTH).toBe(256);
    expect(boundKeyPart(part)).toBe(part);
  });

  it('replaces a 257-character part by its SHA-1 hex', () => {
    expect(boundKeyPart('a'.repeat(257))).toBe(
      createHash('sha1').update('a'.repeat(257)).digest('hex'),
    );
  });

  it('replaces a 300-character part by a 40-character SHA-1 hex', () => {
    const hashed = boundKeyPart('x'.repeat(300));
    expect(hashed).toHaveLength(40);
    expect(hashed).toBe(createHash('sha1').update('x'.repeat(300)).digest('hex'));
  });

  it('hashes a known value to the known digest', () => {
    expect(boundKeyPart('a'.repeat(300))).toBe(SHA1_OF_300_A);
  });
});

describe('normalizeIp', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:192.168.1.2', '192.168.1.2'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['2001:db8::ff00:42:8329', '2001:db8::ff00:42:8329'],
    ['::ffff:7f00:1', '::ffff:7f00:1'],
    ['::ffff:', '::ffff:'],
    ['', ''],
  ])('%p -> %p', (ip, expected) => {
    expect(normalizeIp(ip)).toBe(expected);
  });
});

describe('key namespaces', () => {
  it('escapes %, braces and ~ one-to-one in template and factory keys', () => {
    expect(escapeKeyText('a{b}c~d%e')).toBe('a%7Bb%7Dc%7Ed%25e');
    expect(escapeKeyText('%7B')).toBe('%257B');
    expect(escapeKeyText('sms:+1 555')).toBe('sms:+1 555');
    expect(customKeyPart('{tag}')).toBe('%7Btag%7D');
  });

  it('a derived part keeps its marker when hashed; a hashed custom part is bare hex', () => {
    const user = 'u'.repeat(300);
    const derived = keyPart(LimitType.USER, HANDLER, { ip: '', userId: user });
    expect(derived).toBe('~' + createHash('sha1').update(`${HANDLER}:${user}`).digest('hex'));
    expect(customKeyPart('k'.repeat(300))).toMatch(/^[0-9a-f]{40}$/);
  });

  it('no client value makes a custom part equal to a derived one', () => {
    const ipPart = keyPart(LimitType.IP, HANDLER, { ip: '127.0.0.1' });
    for (const value of [
      ipPart,
      ipPart.slice(1),
      `~${ipPart}`,
      '%7ESmsController.send:127.0.0.1',
    ]) {
      expect(customKeyPart(value)).not.toBe(ipPart);
    }
    const long = keyPart(LimitType.USER, HANDLER, { ip: '', userId: 'u'.repeat(300) });
    expect(customKeyPart(long.slice(1))).not.toBe(long);
  });

  it('derived parts escape braces too (a user id cannot pick a Cluster slot)', () => {
    expect(keyPart(LimitType.USER, HANDLER, { ip: '', userId: '{x}' })).toBe(
      '~SmsController.send:%7Bx%7D',
    );
  });
});
