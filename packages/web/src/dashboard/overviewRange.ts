import { endOfDay, startOfDay } from './paymentsQuery.ts';

/** The overview's preset ranges: the last days up to and including today (UTC). */
export const RANGE_PRESETS = [
  { id: '7d', days: 7, label: 'Last 7 days' },
  { id: '30d', days: 30, label: 'Last 30 days' },
] as const;

export type RangeKind = (typeof RANGE_PRESETS)[number]['id'] | 'custom';

const DEFAULT_PRESET = RANGE_PRESETS[1];

/** The most days a custom range covers: a chart of more daily points says little more. */
export const MAX_RANGE_DAYS = 731;

const DAY_MS = 24 * 60 * 60 * 1000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The range the overview shows: UTC days, both included; a custom range the page cannot show says why. */
export interface OverviewRange {
  kind: RangeKind;
  from: string;
  to: string;
  problem?: string;
}

/** A real calendar day `YYYY-MM-DD` (not 2026-02-30). */
function isDay(text: string | null): text is string {
  if (text === null || !DAY.test(text)) return false;
  const at = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(text);
}

function dayAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The range a page address names: `range=7d` or `30d` (the default) end today; `range=custom` takes `from` and `to`
 * (UTC days, both included), kept in the address so a reload or a shared link shows the same days.
 */
export function rangeOf(query: URLSearchParams, today: string): OverviewRange {
  const kind = query.get('range');
  if (kind !== 'custom') {
    const preset = RANGE_PRESETS.find((each) => each.id === kind) ?? DEFAULT_PRESET;
    return { kind: preset.id, from: dayAfter(today, 1 - preset.days), to: today };
  }
  const from = query.get('from');
  const to = query.get('to');
  if (!isDay(from) || !isDay(to)) {
    return { kind, from: isDay(from) ? from : '', to: isDay(to) ? to : '', problem: 'Choose the first and last day.' };
  }
  if (from > to) return { kind, from, to, problem: 'The first day is after the last day.' };
  if (daysOf({ kind, from, to }).length > MAX_RANGE_DAYS) {
    return { kind, from, to, problem: `Choose at most ${MAX_RANGE_DAYS} days.` };
  }
  return { kind, from, to };
}

/** Every UTC day of a range, in order. */
export function daysOf(range: OverviewRange): string[] {
  const days: string[] = [];
  // Bounded, so a range typed by hand over centuries costs nothing.
  for (let day = range.from; day <= range.to && days.length <= MAX_RANGE_DAYS; day = dayAfter(day, 1)) days.push(day);
  return days;
}

/** The API's query for a range: `startTs` inclusive, `endTs` exclusive (the day after the last). */
export function rangeQuery(range: OverviewRange): URLSearchParams {
  return new URLSearchParams({ startTs: startOfDay(range.from), endTs: endOfDay(range.to) });
}

/** Today's UTC day. */
export function utcToday(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
