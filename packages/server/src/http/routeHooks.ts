import type { RouteOptions } from 'fastify';

type LifecycleHook = 'onRequest' | 'onResponse';

/**
 * Adds a hook to one route from an `onRoute` hook. A hook made per route knows the route's settings when it is
 * built, instead of reading `request.routeOptions` (a new object on every read) per request. A new array is set
 * because fastify registers HEAD routes from a copy of the GET route's options.
 */
export function appendRouteHook<Hook extends LifecycleHook>(
  route: RouteOptions,
  name: Hook,
  hook: NonNullable<RouteOptions[Hook]> extends infer H ? (H extends readonly (infer F)[] ? F : H) : never,
): void {
  const existing = route[name];
  route[name] = [
    ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
    hook,
  ] as RouteOptions[Hook];
}
