import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import {
  boundKeyPart,
  compileKeyPart,
  DERIVED_KEY_MARKER,
  escapeKeyText,
  hashedPartHead,
  keyPart,
} from './key-builder';
import { KeyForm } from './key-form';
import {
  KeyContext,
  NAMED_ROOTS,
  evaluateKeyTemplate,
  evaluateKeyText,
} from './key-template.evaluator';
import { didYouMean } from '../did-you-mean';
import {
  CompiledKeyTemplate,
  KeyTemplateSyntaxError,
  parseKeyTemplate,
} from './key-template.parser';
import { LimitType } from '../contracts/limit-type.enum';

/** The options of a limit that say where its key comes from, as a decorator recorded them. */
interface KeyDeclaration {
  key?: unknown;
  limitType?: unknown;
}

/** What a key may depend on, resolved once per request. */
export interface RequestFacts {
  /** The client address, as templates see it (`#{ip}`). */
  ip: string;
  /** The address IP keys and the USER anonymous fallback count: IPv6 reduced to `ipv6Subnet`. */
  keyIp: string;
  userId?: string | number;
  keyContext: KeyContext;
}

const LIMIT_TYPES: readonly string[] = Object.values(LimitType);

/** A `key` template without `limitType` means CUSTOM; neither means METHOD. */
export function limitTypeOf(options: KeyDeclaration): LimitType {
  // 'USER' and LimitType.USER are one value: the enum's values are its names.
  return (options.limitType ?? (options.key ? LimitType.CUSTOM : LimitType.METHOD)) as LimitType;
}

interface CompiledKey {
  key: (facts: RequestFacts) => string;
  keyForm: KeyForm;
  readsUser: boolean;
  hashedKeyForm?: KeyForm;
}

export function compileKey(
  options: KeyDeclaration,
  where: string,
  handlerName: string,
  base: string,
  warn: (message: string) => void,
  /** What a hashed part names: the kind's name (`countLimit`), never the key's own. */
  kindName: string,
): CompiledKey {
  const template = options.key ?? '';
  const limitType = limitTypeOf(options);
  if (!LIMIT_TYPES.includes(limitType)) {
    throw new LimiterConfigError(
      limiterMessages.invalidChoice(where, 'limitType', limitType, LIMIT_TYPES),
    );
  }
  if (typeof template !== 'string') {
    throw new LimiterConfigError(limiterMessages.invalidOption(where, 'key', template, 'a string'));
  }
  if (limitType !== LimitType.CUSTOM) {
    if (template) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(
          where,
          'key',
          template,
          `empty with limitType ${limitType} (a key template needs LimitType.CUSTOM)`,
        ),
      );
    }
    if (limitType === LimitType.METHOD) {
      const fixed = base + keyPart(LimitType.METHOD, handlerName, { ip: '' }, kindName);
      return { key: () => fixed, keyForm: [fixed], readsUser: false };
    }
    const checkIp = warnOnEmptyIp(where, warn);
    const part = compileKeyPart(limitType, handlerName, kindName);
    return {
      key: (facts) => {
        const userId = limitType === LimitType.USER ? facts.userId : undefined;
        if (userId === undefined) checkIp(facts);
        return base + part(facts.keyIp, userId);
      },
      // An IP, a user id, or `ip:` and an IP for an anonymous user, after the derived part.
      keyForm: [base + keyPart(LimitType.METHOD, handlerName, { ip: '' }, kindName) + ':', ''],
      hashedKeyForm: [base + DERIVED_KEY_MARKER + hashedPartHead(kindName), ''],
      readsUser: limitType === LimitType.USER,
    };
  }
  if (!template) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'key', template, 'a key template with LimitType.CUSTOM'),
    );
  }
  let compiled: CompiledKeyTemplate;
  try {
    compiled = parseKeyTemplate(template);
  } catch (error) {
    if (!(error instanceof KeyTemplateSyntaxError)) throw error;
    throw new LimiterConfigError(`${where}: ${error.message}`, { cause: error });
  }
  checkRoots(compiled, template, where);
  if (compiled.isConstant) {
    const fixed =
      base + keyPart(LimitType.CUSTOM, handlerName, { ip: '', custom: template }, kindName);
    return { key: () => fixed, keyForm: [fixed], readsUser: false };
  }
  // The evaluated text is escaped character by character: so are its literals.
  const literals = compiled.literals.map(escapeKeyText);
  const readsUser = compiled.expressions.some((expression) =>
    [expression, ...(expression.fallbacks ?? [])].some((operand) => operand.root === 'user'),
  );
  if (compiled.expressions.some((expression) => expression.fallbacks)) {
    // Escaped as it is built, so a fallback's value can carry its mark (FALLBACK_MARKER).
    return {
      key: (facts) => base + boundKeyPart(evaluateKeyText(compiled, facts.keyContext), kindName),
      keyForm: [base + literals[0], ...literals.slice(1)],
      hashedKeyForm: [base + hashedPartHead(kindName), ''],
      readsUser,
    };
  }
  return {
    key: (facts) =>
      base +
      keyPart(
        LimitType.CUSTOM,
        handlerName,
        { ip: facts.ip, custom: evaluateKeyTemplate(compiled, facts.keyContext) },
        kindName,
      ),
    keyForm: [base + literals[0], ...literals.slice(1)],
    hashedKeyForm: [base + hashedPartHead(kindName), ''],
    readsUser,
  };
}

/**
 * An IP key with no IP (a server on a unix socket: Express and Fastify report none) puts
 * every client on one key. That is kept, and said once per limit, so it is not silent.
 */
function warnOnEmptyIp(
  where: string,
  warn: (message: string) => void,
): (facts: RequestFacts) => void {
  let warned = false;
  return (facts) => {
    if (!warned && facts.ip === '') {
      warned = true;
      warn(limiterMessages.emptyClientIp(where));
    }
  };
}

/**
 * Refuses a bare name with a path that is a root misspelt (`#{bdy.username}`): it would be
 * looked up as a field `bdy` of params, query and body, found nowhere, and answer 400.
 */
function checkRoots(compiled: CompiledKeyTemplate, template: string, where: string): void {
  for (const expression of compiled.expressions) {
    for (const operand of [expression, ...(expression.fallbacks ?? [])]) {
      if (NAMED_ROOTS.has(operand.root) || operand.path.length === 0) continue;
      // A few letters off only: `userInfo` or `queryOptions` is a field, not `user` mistyped.
      const near = didYouMean(operand.root, [...NAMED_ROOTS], false);
      if (near !== undefined) {
        throw new LimiterConfigError(
          limiterMessages.misspeltKeyRoot(where, template, operand.root, near),
        );
      }
    }
  }
}
