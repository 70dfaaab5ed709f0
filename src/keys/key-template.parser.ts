/**
 * One `#{expr}` of a key template, parsed: a root name and the own properties to read after it.
 * Index segments (`[0]`) are kept as their canonical string (`'0'`), the property name an array
 * element has, so evaluation reads every segment the same way.
 */
export interface KeyExpression {
  /** The operand as written, without `#{ }` and surrounding spaces, e.g. `body.phone`. */
  readonly source: string;
  /** `params`, `query`, `body`, `headers`, `user`, `ip`, `method`, `path`, or a bare name. */
  readonly root: string;
  readonly path: readonly string[];
  /**
   * The operands after `??`, tried in order while the ones before are missing or empty:
   * `#{headers['x-api-key'] ?? ip}`. Absent without `??`.
   */
  readonly fallbacks?: readonly KeyExpression[];
}

/**
 * A key template parsed once, at start-up. Laid out like a tagged template literal:
 * `literals.length === expressions.length + 1`, and the key is
 * `literals[0] + value(expressions[0]) + literals[1] + …`.
 */
export interface CompiledKeyTemplate {
  readonly source: string;
  /** True when the template has no expression: it evaluates to `source`. */
  readonly isConstant: boolean;
  readonly literals: readonly string[];
  readonly expressions: readonly KeyExpression[];
}

/**
 * A key template is not valid. Thrown at application start-up; the message names the
 * template, the problem and its 0-based position.
 *
 * @publicApi
 */
export class KeyTemplateSyntaxError extends Error {
  override readonly name = 'KeyTemplateSyntaxError';

  constructor(
    readonly template: string,
    readonly problem: string,
    readonly position: number,
  ) {
    super(`Invalid key template '${template}': ${problem} at position ${position}`);
  }
}

// Reading these could reach a prototype or a constructor even with own-property checks
// (e.g. a JSON body may carry an own `__proto__`), so they are refused outright.
const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const NAME = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const DIGITS = /[0-9]+/y;

/**
 * Parses a key template: text mixed with `#{expr}` parts, or a single `#expr` that is the
 * whole key (`'#body.phone'`). An expression is a name followed by any of `.name`, `?.name`,
 * `['literal']` (single or double quotes, no escapes) and `[0]`; nothing else. Inside braces,
 * `a ?? b ?? c` takes the first operand that is present. Every `#` must
 * start an expression, so a mistyped `'sms:#body.phone'` fails instead of silently becoming
 * one constant key shared by every request. Header names are lower-cased, as Node stores them.
 *
 * @throws KeyTemplateSyntaxError
 */
export function parseKeyTemplate(template: string): CompiledKeyTemplate {
  const literals: string[] = [];
  const expressions: KeyExpression[] = [];
  if (template.startsWith('#') && !template.startsWith('#{')) {
    expressions.push(new ExpressionReader(template, 1, -1).read());
    literals.push('', '');
  } else {
    let textStart = 0;
    for (let hash = template.indexOf('#'); hash !== -1; hash = template.indexOf('#', textStart)) {
      if (template[hash + 1] !== '{') {
        throw new KeyTemplateSyntaxError(
          template,
          "expected '{' after '#' (the '#expr' form must be the whole key)",
          hash + 1,
        );
      }
      literals.push(template.slice(textStart, hash));
      const reader = new ExpressionReader(template, hash + 2, hash);
      expressions.push(reader.read());
      textStart = reader.position;
    }
    literals.push(template.slice(textStart));
  }
  return Object.freeze({
    source: template,
    isConstant: expressions.length === 0,
    literals: Object.freeze(literals),
    expressions: Object.freeze(expressions),
  });
}

/** Reads one expression from `start`; `openAt` is the position of its `#{`, or -1 for `#expr`. */
class ExpressionReader {
  position: number;

  constructor(
    private readonly template: string,
    start: number,
    private readonly openAt: number,
  ) {
    this.position = start;
  }

  read(): KeyExpression {
    const braced = this.openAt >= 0;
    if (braced) this.skipSpaces();
    if (braced && this.template[this.position] === '}') this.fail('empty expression');
    const first = this.operand();
    const fallbacks: KeyExpression[] = [];
    if (braced) {
      this.skipSpaces();
      while (this.template.startsWith('??', this.position)) {
        this.position += 2;
        this.skipSpaces();
        fallbacks.push(this.operand());
        this.skipSpaces();
      }
    }
    if (braced && this.template[this.position] === '}') {
      this.position += 1;
    } else if (braced || this.position < this.template.length) {
      this.fail(`unexpected '${this.template[this.position]}'`);
    }
    if (fallbacks.length === 0) return first;
    return Object.freeze({ ...first, fallbacks: Object.freeze(fallbacks) });
  }

  /** One operand: a name, then any of `.name`, `?.name`, `['literal']`, `[0]`. */
  private operand(): KeyExpression {
    const start = this.position;
    const root = this.name('expected a name');
    const path: string[] = [];
    for (;;) {
      const char = this.template[this.position];
      if (char === '.') {
        this.position += 1;
        path.push(this.name("expected a property name after '.'"));
      } else if (char === '?' && this.template[this.position + 1] === '.') {
        this.position += 2;
        path.push(this.name("expected a property name after '?.'"));
      } else if (char === '[') {
        this.position += 1;
        path.push(this.bracket());
      } else {
        break;
      }
    }
    if (root === 'headers' && path.length > 0) path[0] = path[0].toLowerCase();
    return Object.freeze({
      source: this.template.slice(start, this.position),
      root,
      path: Object.freeze(path),
    });
  }

  /** After `[`: a quoted literal or a non-negative integer index, then `]`. */
  private bracket(): string {
    const quote = this.template[this.position];
    let segment: string;
    if (quote === "'" || quote === '"') {
      const close = this.template.indexOf(quote, this.position + 1);
      if (close === -1) this.fail('unterminated string literal');
      segment = this.template.slice(this.position + 1, close);
      this.refuseForbidden(segment, this.position + 1);
      this.position = close + 1;
    } else {
      const digits = this.match(DIGITS);
      if (digits === undefined) this.fail("expected a quoted name or an index after '['");
      const index = Number(digits);
      if (!Number.isSafeInteger(index)) this.fail('index too large', this.position - digits.length);
      segment = String(index);
    }
    if (this.template[this.position] !== ']') this.fail("expected ']'");
    this.position += 1;
    return segment;
  }

  private name(problem: string): string {
    const start = this.position;
    const name = this.match(NAME);
    if (name === undefined) this.fail(problem);
    this.refuseForbidden(name, start);
    return name;
  }

  private refuseForbidden(name: string, at: number): void {
    if (FORBIDDEN_NAMES.has(name)) this.fail(`property '${name}' is not allowed`, at);
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.template);
    if (found === null) return undefined;
    this.position = pattern.lastIndex;
    return found[0];
  }

  private skipSpaces(): void {
    while (this.template[this.position]?.trim() === '') this.position += 1;
  }

  /** Running out of text inside `#{` is reported at the `#{`, where the fix belongs. */
  private fail(problem: string, at = this.position): never {
    if (this.openAt >= 0 && at >= this.template.length) {
      throw new KeyTemplateSyntaxError(this.template, "unclosed '#{'", this.openAt);
    }
    throw new KeyTemplateSyntaxError(this.template, problem, at);
  }
}
