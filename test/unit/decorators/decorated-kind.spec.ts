import 'reflect-metadata';
import { countLimitKind } from '../../../src/algorithms/count-limit/count-limit.definition';
import { LimitKind } from '../../../src/algorithms/limit-kind';
import { limitOf, readMethodLimits } from '../../../src/decorators/limit-metadata.accessor';
import { compileLimit, CompiledLimit } from '../../../src/compile/compiled-limit';

/** A kind the registry does not list: only what the decorator recorded can name it. */
const unlisted: LimitKind = { ...countLimitKind, name: 'unlistedWindow', decorator: '@Unlisted' };

class Handlers {
  @limitOf(unlisted, { limit: 2, period: 10, block: [1, 2] })
  send() {}
}

describe('a decorated limit compiles from the kind its decorator recorded', () => {
  const [definition] = readMethodLimits(Handlers.prototype.send);

  it('needs no lookup by name: a kind the registry does not list compiles', () => {
    const limit = compileLimit(definition, 'Handlers.send', '') as CompiledLimit;
    expect([limit.kind, limit.where, limit.name]).toEqual([
      'unlistedWindow',
      '@Unlisted on Handlers.send',
      'countLimit',
    ]);
    expect(limit.params).toEqual({
      limit: 2,
      periodMs: 10_000,
      blockMicros: 1_000_000,
      blockStepsMicros: [1_000_000, 2_000_000],
    });
  });

  it("sends the block first, then the model's parameters", () => {
    const limit = compileLimit(definition, 'Handlers.send', '') as CompiledLimit;
    expect(limit.algorithm.paramsArgv(limit.params)).toEqual(['1000000,2000000', '2', '10000']);
  });
});
