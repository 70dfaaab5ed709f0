import { refusedEntries, refusesCallForm } from '../../../../../src/stores/redis/engine/call-mode';

describe('a call refused for its form', () => {
  it.each([
    ["CROSSSLOT Keys in request don't hash to the same slot", true],
    ['ERR Script attempted to access keys that do not hash to the same slot', true],
    ['ERR Error running script: script tried accessing undeclared key, key: a', true],
    ["ERR Error compiling script (new function): user_script:1: unexpected symbol near '#'", true],
    ['ERR Unexpected flag in script shebang: allow-cross-slot-keys', true],
    ['NOPERM this user has no permissions to run the evalsha command', false],
    ['WRONGTYPE Operation against a key holding the wrong kind of value', false],
    ['OOM command not allowed when used memory > maxmemory', false],
  ])('%s: %p', (message, refused) => {
    expect(refusesCallForm(new Error(message))).toBe(refused);
  });

  it('finds the entries of a packed reply that failed for an undeclared key, and only those', () => {
    const undeclared = 'ERR script tried accessing undeclared key, key: b';
    const reply = [
      '1700000000',
      '000000',
      '1,4,60000,0,0',
      `-2,${undeclared}`,
      '-2,WRONGTYPE Operation against a key holding the wrong kind of value',
      '',
    ].join('\0');
    expect(refusedEntries(reply, 3)).toEqual(new Map([[1, undeclared]]));
    expect(
      refusedEntries(['1700000000', '000000', '1,4,60000,0,0', ''].join('\0'), 1),
    ).toBeUndefined();
  });
});
