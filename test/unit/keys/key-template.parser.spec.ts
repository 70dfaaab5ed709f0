import { KeyTemplateSyntaxError, parseKeyTemplate } from '../../../src/keys/key-template.parser';

describe('parseKeyTemplate', () => {
  describe('valid templates', () => {
    it('parses text mixed with one expression', () => {
      expect(parseKeyTemplate('sms:#{body.phone}')).toEqual({
        source: 'sms:#{body.phone}',
        isConstant: false,
        literals: ['sms:', ''],
        expressions: [{ source: 'body.phone', root: 'body', path: ['phone'] }],
      });
    });

    it('treats a template without # as a constant', () => {
      expect(parseKeyTemplate('report:daily')).toEqual({
        source: 'report:daily',
        isConstant: true,
        literals: ['report:daily'],
        expressions: [],
      });
      expect(parseKeyTemplate('').literals).toEqual(['']);
    });

    it('accepts #expr without braces when it is the whole key', () => {
      expect(parseKeyTemplate('#body.phone')).toEqual({
        source: '#body.phone',
        isConstant: false,
        literals: ['', ''],
        expressions: [{ source: 'body.phone', root: 'body', path: ['phone'] }],
      });
      expect(parseKeyTemplate('#phone').expressions).toEqual([
        { source: 'phone', root: 'phone', path: [] },
      ]);
    });

    it('keeps literals between several expressions', () => {
      const template = parseKeyTemplate('a#{params.id}-#{query.page}c');
      expect(template.literals).toEqual(['a', '-', 'c']);
      expect(template.expressions.map((e) => e.source)).toEqual(['params.id', 'query.page']);
    });

    it('trims whitespace around the expression', () => {
      expect(parseKeyTemplate('#{  body.phone\t}').expressions).toEqual([
        { source: 'body.phone', root: 'body', path: ['phone'] },
      ]);
    });

    it('parses ?.name, quoted literals and indexes', () => {
      expect(parseKeyTemplate(`#{user?.profile['a-b']["c d"][0].$x_1}`).expressions).toEqual([
        {
          source: `user?.profile['a-b']["c d"][0].$x_1`,
          root: 'user',
          path: ['profile', 'a-b', 'c d', '0', '$x_1'],
        },
      ]);
    });

    it('stores an index in canonical form', () => {
      expect(parseKeyTemplate('#{body.items[007]}').expressions[0].path).toEqual(['items', '7']);
    });

    it('lower-cases the header name, as Node stores it, but keeps the source as written', () => {
      expect(parseKeyTemplate("#{headers['X-Api-Key']}").expressions).toEqual([
        { source: "headers['X-Api-Key']", root: 'headers', path: ['x-api-key'] },
      ]);
    });

    it('lets a quoted literal contain a closing brace', () => {
      expect(parseKeyTemplate("k:#{body['a}b']}:z").expressions[0].path).toEqual(['a}b']);
      expect(parseKeyTemplate("k:#{body['a}b']}:z").literals).toEqual(['k:', ':z']);
    });

    it('returns a deeply frozen object', () => {
      const template = parseKeyTemplate('x:#{body.a}');
      expect(Object.isFrozen(template)).toBe(true);
      expect(Object.isFrozen(template.literals)).toBe(true);
      expect(Object.isFrozen(template.expressions)).toBe(true);
      expect(Object.isFrozen(template.expressions[0])).toBe(true);
      expect(Object.isFrozen(template.expressions[0].path)).toBe(true);
    });
  });

  describe('syntax errors', () => {
    it.each([
      ['#{body..x}', "expected a property name after '.' at position 7"],
      ['#{}', 'empty expression at position 2'],
      ['#{  }', 'empty expression at position 4'],
      ['#{a.}', "expected a property name after '.' at position 4"],
      ['#{a?.}', "expected a property name after '?.' at position 5"],
      ['#{a', "unclosed '#{' at position 0"],
      ['x:#{a.b', "unclosed '#{' at position 2"],
      ['#{a[', "unclosed '#{' at position 0"],
      ['#{a[}', "expected a quoted name or an index after '[' at position 4"],
      ['#{a[-1]}', "expected a quoted name or an index after '[' at position 4"],
      ['#{a()}', "unexpected '(' at position 3"],
      ['#{a + b}', "unexpected '+' at position 4"],
      ['#{a .b}', "unexpected '.' at position 4"],
      ['#{a?b}', "unexpected '?' at position 3"],
      ['#{1a}', 'expected a name at position 2'],
      ["#{a['x}", 'unterminated string literal at position 4'],
      ["#{a['x'}", "expected ']' at position 7"],
      ['#{a[1x]}', "expected ']' at position 5"],
      ['#{a[99999999999999999999]}', 'index too large at position 4'],
      ['#', 'expected a name at position 1'],
      ['#a b', "unexpected ' ' at position 2"],
      ['#a}', "unexpected '}' at position 2"],
      [
        'sms:#body.phone',
        "expected '{' after '#' (the '#expr' form must be the whole key) at position 5",
      ],
      ['#{a}#b', "expected '{' after '#' (the '#expr' form must be the whole key) at position 5"],
    ])('%s', (template, problem) => {
      expect(() => parseKeyTemplate(template)).toThrow(KeyTemplateSyntaxError);
      expect(() => parseKeyTemplate(template)).toThrow(
        `Invalid key template '${template}': ${problem}`,
      );
    });

    it('reports the exact message, name and fields', () => {
      let caught: unknown;
      try {
        parseKeyTemplate('#{body..x}');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(KeyTemplateSyntaxError);
      expect(caught).toMatchObject({
        name: 'KeyTemplateSyntaxError',
        message:
          "Invalid key template '#{body..x}': expected a property name after '.' at position 7",
        template: '#{body..x}',
        problem: "expected a property name after '.'",
        position: 7,
      });
    });
  });

  describe('forbidden property names', () => {
    it.each([
      ['#{body.__proto__}', "property '__proto__' is not allowed at position 7"],
      ['#{body.constructor.name}', "property 'constructor' is not allowed at position 7"],
      ['#{user?.prototype}', "property 'prototype' is not allowed at position 8"],
      ["#{body['__proto__']}", "property '__proto__' is not allowed at position 8"],
      ['#{query["constructor"]}', "property 'constructor' is not allowed at position 9"],
      ['#{__proto__}', "property '__proto__' is not allowed at position 2"],
      ['#constructor', "property 'constructor' is not allowed at position 1"],
    ])('%s', (template, problem) => {
      expect(() => parseKeyTemplate(template)).toThrow(KeyTemplateSyntaxError);
      expect(() => parseKeyTemplate(template)).toThrow(
        `Invalid key template '${template}': ${problem}`,
      );
    });
  });
});
