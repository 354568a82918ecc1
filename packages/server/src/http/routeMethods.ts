import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Which methods each registered path takes, so that a known path asked with another method answers 405 with an
 * `Allow` header instead of 404. Fastify's own router answers only "no route"; this one is consulted on that path
 * alone, so it costs a matched request nothing.
 */
export class RouteMethods {
  private readonly router = FindMyWay();

  /** Records every route registered on `app` from now on. */
  track(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const name of methods) {
        const method = name.toUpperCase() as HTTPMethod;
        if (!this.router.hasRoute(method, route.url)) this.router.on(method, route.url, () => undefined);
      }
    });
  }

  /** The methods `path` takes; empty when no route has that path. */
  allowed(path: string): string[] {
    return METHODS.filter((method) => this.router.find(method, path) !== null);
  }
}
