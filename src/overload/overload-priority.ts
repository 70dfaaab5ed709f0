import { parseKeyTemplate } from '../keys/key-template.parser';
import { evaluateKeyTemplate, KeyContext } from '../keys/key-template.evaluator';
import { OverloadPriority, OverloadSettings } from './overload.options';
import { PRIORITIES } from './overload-gate';

/** What a priority reads: the request as its transport gives it, and its key context. */
interface PriorityInput {
  request: unknown;
  keyContext(): KeyContext;
}

export type PriorityOf = (input: PriorityInput) => OverloadPriority;

const asPriority = (value: unknown): OverloadPriority =>
  PRIORITIES.includes(value as OverloadPriority) ? (value as OverloadPriority) : 'normal';

/**
 * The class of each request, from the `priority` option: a template read as keys are (a
 * missing or invalid value is `normal`), or the app's function (what it throws is `normal`
 * too: a request is never refused for its priority's mistake).
 */
export function priorityOf(priority: OverloadSettings['priority']): PriorityOf {
  if (priority === undefined) return () => 'normal';
  if (typeof priority === 'function') {
    return ({ request }) => {
      try {
        return asPriority(priority(request));
      } catch {
        return 'normal';
      }
    };
  }
  const template = parseKeyTemplate(priority);
  return (input) => {
    try {
      return asPriority(evaluateKeyTemplate(template, input.keyContext()));
    } catch {
      return 'normal';
    }
  };
}
