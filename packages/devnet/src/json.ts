const BIGINT_MARK = '\u0000bigint:';

/**
 * JSON text in which bigints appear as plain number literals. Solana's RPC sends u64 values as JSON
 * numbers and its clients parse them back into bigints, so no precision is lost on either side.
 */
export function stringifyWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? `${BIGINT_MARK}${item}` : item,
  ).replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
