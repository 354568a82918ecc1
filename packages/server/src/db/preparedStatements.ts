import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Starts a statement that each connection prepares once and then only binds and executes: for the hottest
 * statements, whose parsing and planning cost more than their own work. Its text must not vary with its values.
 */
export const PREPARED = '/* prepared */';

/** The name of each prepared text: the same on every connection, distinct for distinct texts. */
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `p_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

/** node-postgres' client, preparing the statements marked `PREPARED` under their name. */
export class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: the overloads of pg's query are passed through unchanged.
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && config.startsWith(PREPARED))
      return super.query({ name: nameOf(config), text: config, values }, callback);
    return super.query(config, values, callback);
  }
}
