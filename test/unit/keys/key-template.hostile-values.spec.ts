import {
  evaluateKeyTemplate,
  KeyContext,
  KeyValueConflictError,
  KeyValueInvalidError,
} from '../../../src/keys/key-template.evaluator';
import { parseKeyTemplate } from '../../../src/keys/key-template.parser';

const evaluate = (template: string, context: KeyContext): string =>
  evaluateKeyTemplate(parseKeyTemplate(template), context);

describe('key values a client could use to pick its own key', () => {
  describe('a bare name in more than one of params, query and body', () => {
    it('with different values is refused, naming the expression and both sources', () => {
      const context = { query: { phone: 'x0' }, body: { phone: '+15550001111' } };
      expect(() => evaluate('sms:#{phone}', context)).toThrow(KeyValueConflictError);
      expect(() => evaluate('sms:#{phone}', context)).toThrow(
        "Key expression 'phone' has different values in query and body: name one, e.g. 'body.phone'",
      );
      expect(() =>
        evaluate('#{id}', { params: { id: '1' }, query: {}, body: { id: '2' } }),
      ).toThrow("Key expression 'id' has different values in params and body");
    });

    it('with one value written alike is accepted, whatever its JSON type', () => {
      const context = { params: { id: '42' }, query: { id: '42' }, body: { id: 42 } };
      expect(evaluate('order:#{id}', context)).toBe('order:42');
    });

    it('compares the value at the end of the path', () => {
      const nested = { query: { who: { name: 'a' } }, body: { who: { name: 'b' } } };
      expect(() => evaluate('#{who.name}', nested)).toThrow(KeyValueConflictError);
      expect(evaluate('#{who.name}', { query: { who: {} }, body: { who: { name: 'b' } } })).toBe(
        'b',
      );
    });

    it('a named source is never compared with the others', () => {
      const context = { query: { phone: 'x0' }, body: { phone: '+1555' } };
      expect(evaluate('#{body.phone}', context)).toBe('+1555');
      expect(evaluate('#{query.phone}', context)).toBe('x0');
    });
  });

  describe('lone UTF-16 surrogates', () => {
    // UTF-8 encodes each of these as U+FFFD: two different values, one Redis key.
    it.each(['\ud800', 'a\udc00', '\udbff\u0041', 'x\ud83d'])('%j is refused', (value) => {
      expect(() => evaluate('#{body.phone}', { body: { phone: value } })).toThrow(
        KeyValueInvalidError,
      );
      expect(() => evaluate('#{body.phone}', { body: { phone: value } })).toThrow(
        "Key expression 'body.phone' must be a string or number, got a string with a lone UTF-16 surrogate",
      );
    });

    it('a well-formed pair (an emoji) is accepted', () => {
      expect(evaluate('#{body.phone}', { body: { phone: 'a\ud83d\ude00' } })).toBe('a😀');
    });
  });
});
