import type { PlannedLimit } from './compiled-limit';
import type { HandlerGate } from './overload-gates';

/**
 * A handler's compiled limits. `dynamic` says the guard needs the request's
 * `LimitContext` (a `skip` predicate or an option that is a function somewhere); a plan
 * without it does no more work per request than one before those existed.
 */
export interface LimitPlan extends ReadonlyArray<PlannedLimit> {
  readonly dynamic: boolean;
  readonly hasShadow: boolean;
  /** Some key depends on the user: decided after the app's own guards (RateLimitInterceptor decides them). */
  readonly readsUser: boolean;
  /** Some limit has work after the guard (see PlannedLimit's `afterHandler`). */
  readonly afterHandler: boolean;
}

/** What the guard needs of one handler: its compiled limits and the overload gate it passes. */
export interface HandlerRoute {
  readonly plan: LimitPlan;
  readonly gate?: HandlerGate;
}

/**
 * Every handler's route, kept per controller and handler (a method inherited by two
 * controllers has each one's). LimitExplorer fills it when the application starts, so a
 * request finds its route in one lookup and compiles nothing. Only a handler the module's
 * discovery never saw (a guard bound to a class outside it) is compiled on its first
 * request, by `late`, which the explorer hands the table: the guard asks the table only.
 */
export class HandlerRoutes {
  private readonly byController = new Map<Function, Map<Function, HandlerRoute>>();

  constructor(
    /** Compiles the route of a handler the application's start did not see. */
    private readonly late: (controller: Function, handler: Function) => HandlerRoute,
  ) {}

  /** The handler's route; one not compiled yet is compiled now, and kept. */
  of(controller: Function, handler: Function): HandlerRoute {
    return this.byController.get(controller)?.get(handler) ?? this.late(controller, handler);
  }

  has(controller: Function, handler: Function): boolean {
    return this.byController.get(controller)?.has(handler) === true;
  }

  set(controller: Function, handler: Function, route: HandlerRoute): void {
    let byHandler = this.byController.get(controller);
    if (!byHandler) this.byController.set(controller, (byHandler = new Map()));
    byHandler.set(handler, route);
  }

  /** A copy to compile again into: requests keep the old routes until it replaces them. */
  copy(): HandlerRoutes {
    const copy = new HandlerRoutes(this.late);
    for (const [controller, byHandler] of this.byController) {
      copy.byController.set(controller, new Map(byHandler));
    }
    return copy;
  }

  /** Every plan kept, a handler's once. */
  *plans(): IterableIterator<LimitPlan> {
    for (const byHandler of this.byController.values()) {
      for (const route of byHandler.values()) yield route.plan;
    }
  }
}
