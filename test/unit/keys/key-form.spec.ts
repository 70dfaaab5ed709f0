import { KeyForm, keyFormsOverlap } from '../../../src/keys/key-form';

// A value between two literals: ['p:', ''] is 'p:' followed by any non-empty value.
const overlap = (a: KeyForm, b: KeyForm) => [keyFormsOverlap(a, b), keyFormsOverlap(b, a)];

describe('keyFormsOverlap', () => {
  it.each<[string, KeyForm, KeyForm, boolean]>([
    ['one constant key', ['p:Cls.m'], ['p:Cls.m'], true],
    ['two constants', ['p:Cls.m'], ['p:Cls.n'], false],
    ['a constant a template can produce', ['p:sms:+1'], ['p:sms:', ''], true],
    ['a template value cannot be empty', ['p:sms:'], ['p:sms:', ''], false],
    ['different prefixes', ['countLimit:', ''], ['slidingWindow:', ''], false],
    ['a prefix inside the value of the other', ['p:', ''], ['p:b:', ''], true],
    ['IP keys of two handlers', ['p:A.m:', ''], ['p:B.m:', ''], false],
    ['a template that can spell a handler key', ['p:', '.m:', ''], ['p:A.m:', ''], true],
    ['fixed suffixes that differ', ['p:', ':x'], ['p:', ':y'], false],
    ['fixed suffixes that agree', ['p:', ':x'], ['p:a', ''], true],
    ['values on both sides in a different order', ['p:a', 'b'], ['p:', 'c', ''], true],
    ['one character each way', ['p:', ''], ['p:x'], true],
    ['a longer literal needed than a value gives', ['p:', 'z'], ['p:ab'], false],
    ['two values back to back need two characters', ['p:', '', ''], ['p:x'], false],
    ['a value never holds the derived-key marker', ['p:', ''], ['p:~Cls.m'], false],
    ['nor does a run of values', ['p:', 'x', ''], ['p:~x~', ''], false],
    ['a derived key of the same handler', ['p:~A.m:', ''], ['p:~A.m:', ''], true],
  ])('%s', (_name, a, b, expected) => {
    expect(overlap(a, b)).toEqual([expected, expected]);
  });
});
