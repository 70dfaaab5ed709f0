import {
  evaluateKeyTemplate,
  KeyContext,
  KeyValueInvalidError,
  KeyValueMissingError,
} from '../../../src/keys/key-template.evaluator';
import { parseKeyTemplate } from '../../../src/keys/key-template.parser';

const evaluate = (template: string, context: KeyContext): string =>
  evaluateKeyTemplate(parseKeyTemplate(template), context);

describe('evaluateKeyTemplate', () => {
  describe('values', () => {
    it('fills text around an expression', () => {
      expect(evaluate('sms:#{body.phone}', { body: { phone: '+123' } })).toBe('sms:+123');
    });

    it('returns a constant template as is', () => {
      expect(evaluate('report:daily', {})).toBe('report:daily');
    });

    it('evaluates the whole-key #expr form', () => {
      expect(evaluate('#body.phone', { body: { phone: '+123' } })).toBe('+123');
      expect(evaluate('#phone', { query: { phone: '+456' } })).toBe('+456');
    });

    it('joins several expressions', () => {
      const context = { params: { id: '7' }, query: { page: '2' } };
      expect(evaluate('a#{params.id}-#{query.page}c', context)).toBe('a7-2c');
    });

    it('reads every context root', () => {
      const context: KeyContext = {
        params: { id: 'p' },
        query: { q: 'q' },
        body: { b: 'b' },
        headers: { h: 'h' },
        user: { id: 42 },
        ip: '10.0.0.1',
        method: 'POST',
        path: '/sms',
      };
      const template =
        "#{params.id}|#{query.q}|#{body.b}|#{headers['h']}|#{user.id}|#{ip}|#{method}|#{path}";
      expect(evaluate(template, context)).toBe('p|q|b|h|42|10.0.0.1|POST|/sms');
    });

    it('reads a header by a name written in any case', () => {
      const context = { headers: { 'x-api-key': 'k-1' } };
      expect(evaluate("key:#{headers['x-api-key']}", context)).toBe('key:k-1');
      expect(evaluate("key:#{headers['X-Api-Key']}", context)).toBe('key:k-1');
    });

    it('reads an array element by index', () => {
      expect(evaluate('#{body.items[0]}', { body: { items: ['first', 'second'] } })).toBe('first');
      expect(evaluate('#{body.items[1]}', { body: { items: ['first', 'second'] } })).toBe('second');
    });

    it('reads ?.name like .name when the value is there', () => {
      expect(evaluate('u:#{user?.id}', { user: { id: 'alice' } })).toBe('u:alice');
    });

    it('converts finite numbers, booleans and bigints with String()', () => {
      const body = { n: 1.5, zero: 0, yes: true, no: false, big: 12345678901234567890n };
      expect(evaluate('#{body.n}:#{body.zero}:#{body.yes}:#{body.no}:#{body.big}', { body })).toBe(
        '1.5:0:true:false:12345678901234567890',
      );
    });
  });

  describe('bare names', () => {
    const params = { phone: 'from-params' };
    const query = { phone: 'from-query' };
    const body = { phone: 'from-body' };

    it('looks in params, then query, then body', () => {
      expect(evaluate('#{phone}', { params, query: {}, body: {} })).toBe('from-params');
      expect(evaluate('#{phone}', { params: {}, query, body: {} })).toBe('from-query');
      expect(evaluate('#{phone}', { params: {}, query: {}, body })).toBe('from-body');
    });

    it('skips a source whose own value is undefined', () => {
      expect(evaluate('#{phone}', { params: { phone: undefined }, body })).toBe('from-body');
    });

    it('skips a source that is not an object', () => {
      expect(evaluate('#{phone}', { params: undefined, query: 'phone=1', body })).toBe('from-body');
    });

    it('does not look in user, headers or inherited properties', () => {
      const context = { user: { phone: 'u' }, headers: { phone: 'h' }, body: {} };
      expect(() => evaluate('#{phone}', context)).toThrow(
        "Missing value for key expression 'phone'",
      );
      expect(() => evaluate('#{toString}', { body: {} })).toThrow(
        "Missing value for key expression 'toString'",
      );
    });

    it('walks a path after a bare name', () => {
      expect(evaluate('#{address.city}', { body: { address: { city: 'Oslo' } } })).toBe('Oslo');
    });
  });

  describe('missing values', () => {
    it.each<[string, KeyContext, string]>([
      ['#{user?.id}', {}, 'user?.id'],
      ['#{user.id}', { user: null }, 'user.id'],
      ['#{body.phone}', { body: {} }, 'body.phone'],
      ['#{body.phone}', { body: { phone: null } }, 'body.phone'],
      ['#{body.phone}', { body: { phone: '' } }, 'body.phone'],
      ['#{body.toString}', { body: {} }, 'body.toString'],
      ['#{body.phone}', { body: Object.create({ phone: 'inherited' }) }, 'body.phone'],
      ['#{body.a.b}', { body: { a: 'text' } }, 'body.a.b'],
      ['#{path.length}', { path: '/sms' }, 'path.length'],
      ['#{body.items[2]}', { body: { items: ['a'] } }, 'body.items[2]'],
      ['#{ip}', {}, 'ip'],
      ['x:#{ phone }', { params: {}, query: {}, body: {} }, 'phone'],
    ])('%s with %j', (template, context, expression) => {
      expect(() => evaluate(template, context)).toThrow(
        `Missing value for key expression '${expression}'`,
      );
    });

    it('throws a plain error with name and expression', () => {
      const thrown = catchError(() => evaluate('#{user?.id}', {}));
      expect(thrown).toBeInstanceOf(KeyValueMissingError);
      expect(thrown).toMatchObject({
        name: 'KeyValueMissingError',
        expression: 'user?.id',
        message: "Missing value for key expression 'user?.id'",
      });
    });
  });

  describe('invalid values', () => {
    it.each<[string, KeyContext, string]>([
      [
        '#{query.a}',
        { query: { a: { b: '1' } } },
        "Key expression 'query.a' must be a string or number, got object",
      ],
      [
        '#{query.a}',
        { query: { a: ['1', '2'] } },
        "Key expression 'query.a' must be a string or number, got array",
      ],
      [
        '#{phone}',
        { query: { phone: ['1', '2'] } },
        "Key expression 'phone' must be a string or number, got array",
      ],
      [
        '#{body.n}',
        { body: { n: Number.NaN } },
        "Key expression 'body.n' must be a string or number, got NaN",
      ],
      [
        '#{body.n}',
        { body: { n: Infinity } },
        "Key expression 'body.n' must be a string or number, got Infinity",
      ],
      [
        '#{user.f}',
        { user: { f: () => 'x' } },
        "Key expression 'user.f' must be a string or number, got function",
      ],
      [
        '#{user.s}',
        { user: { s: Symbol('s') } },
        "Key expression 'user.s' must be a string or number, got symbol",
      ],
    ])('%s with %p', (template, context, message) => {
      expect(() => evaluate(template, context)).toThrow(KeyValueInvalidError);
      expect(() => evaluate(template, context)).toThrow(message);
    });

    it('throws a plain error with name and expression', () => {
      const thrown = catchError(() => evaluate('k:#{query.a}', { query: { a: { b: '1' } } }));
      expect(thrown).toBeInstanceOf(KeyValueInvalidError);
      expect(thrown).toMatchObject({
        name: 'KeyValueInvalidError',
        expression: 'query.a',
        message: "Key expression 'query.a' must be a string or number, got object",
      });
    });
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
