import {
  evaluateKeyTemplate,
  evaluateKeyText,
  KeyValueConflictError,
  KeyValueInvalidError,
  KeyValueMissingError,
} from '../../../src/keys/key-template.evaluator';
import { KeyTemplateSyntaxError, parseKeyTemplate } from '../../../src/keys/key-template.parser';

describe('key fallbacks: #{a ?? b}', () => {
  it('parses a chain into the first operand and its fallbacks', () => {
    expect(parseKeyTemplate("k:#{ headers['X-Api-Key'] ?? user?.id??ip }").expressions).toEqual([
      {
        source: "headers['X-Api-Key']",
        root: 'headers',
        path: ['x-api-key'],
        fallbacks: [
          { source: 'user?.id', root: 'user', path: ['id'] },
          { source: 'ip', root: 'ip', path: [] },
        ],
      },
    ]);
    expect(parseKeyTemplate('#{a}').expressions[0]).not.toHaveProperty('fallbacks');
  });

  it.each([
    ['#{a ??}', 'expected a name', 6],
    ['#{?? a}', 'expected a name', 2],
    ['#{a ?? }', 'expected a name', 7],
    ['#{a ? b}', "unexpected '?'", 4],
    ['#{a ?? b ?}', "unexpected '?'", 9],
    ['#{a ?? b.__proto__}', "property '__proto__' is not allowed", 9],
    ['#a??b', "unexpected '?'", 2],
    ['#{a ?? b', "unclosed '#{'", 0],
  ])('refuses %p at start-up', (template, problem, position) => {
    expect(() => parseKeyTemplate(template)).toThrow(
      new KeyTemplateSyntaxError(template, problem, position),
    );
  });

  const evaluate = (template: string, context: object) =>
    evaluateKeyTemplate(parseKeyTemplate(template), context);
  const keyText = (template: string, context: object) =>
    evaluateKeyText(parseKeyTemplate(template), context);
  const chain = "k:#{headers['x-api-key'] ?? user.id ?? ip}";

  it('takes the first operand that is present and not empty', () => {
    expect(
      evaluate(chain, { headers: { 'x-api-key': 'K1' }, user: { id: 7 }, ip: '1.2.3.4' }),
    ).toBe('k:K1');
    expect(evaluate(chain, { headers: { 'x-api-key': '' }, user: { id: 7 }, ip: '1.2.3.4' })).toBe(
      'k:7',
    );
    expect(evaluate(chain, { headers: {}, ip: '1.2.3.4' })).toBe('k:1.2.3.4');
    expect(evaluate('#{phone ?? ip}', { body: { phone: null }, ip: '::1' })).toBe('::1');
  });

  it('marks a fallback value in the key, so a client cannot send one as the first operand', () => {
    expect(keyText(chain, { headers: { 'x-api-key': 'K1' }, ip: '1.2.3.4' })).toBe('k:K1');
    expect(keyText(chain, { headers: {}, user: { id: 7 } })).toBe('k:%!user.id:7');
    expect(keyText(chain, { headers: {}, ip: '1.2.3.4' })).toBe('k:%!ip:1.2.3.4');
    // The attempt: the API key spelled like the fallback's text is escaped, never equal.
    expect(keyText(chain, { headers: { 'x-api-key': '%!ip:1.2.3.4' } })).toBe('k:%25!ip:1.2.3.4');
    expect(keyText("#{a ?? body['~{x}']}:#{b}", { body: { '~{x}': '~v', b: '{c}' } })).toBe(
      "%!body['%7E%7Bx%7D']:%7Ev:%7Bc%7D",
    );
  });

  it('is missing only when every operand is, naming the whole chain', () => {
    expect(() => evaluate(chain, { headers: {}, user: {} })).toThrow(
      new KeyValueMissingError("headers['x-api-key'] ?? user.id ?? ip"),
    );
  });

  it('does not fall back over a value that is invalid or in conflict', () => {
    expect(() => evaluate('#{query.a ?? ip}', { query: { a: ['x'] }, ip: '1.2.3.4' })).toThrow(
      KeyValueInvalidError,
    );
    expect(() =>
      evaluate('#{phone ?? ip}', { query: { phone: '1' }, body: { phone: '2' }, ip: '1.2.3.4' }),
    ).toThrow(KeyValueConflictError);
  });
});
