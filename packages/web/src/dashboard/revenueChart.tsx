import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { CurrencyRevenue } from './revenueSeries.ts';

/** Series colours, each at 3:1 or more against white, told apart by the legend's names as well. */
export const SERIES_COLOURS = ['#1d4ed8', '#b45309', '#047857', '#be185d', '#6d28d9', '#0e7490', '#4d7c0f', '#9f1239'];

export function seriesColour(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length]!;
}

const HEIGHT = 240;
const DAY_SECONDS = 86_400;
const INK = '#16181d';
const GRID = '#e3e6eb';

/** A bar's height: a float of standard units is exact enough for a pixel; every amount shown as text is exact. */
function drawn(minor: bigint, decimals: number): number {
  return Number(minor) / 10 ** decimals;
}

/**
 * A currency's revenue per day as stacked bars (uPlot, on a canvas): each series is drawn at its running sum, the
 * tallest first, so a day's bar is the day's total and each part shows in its colour. Hidden from assistive
 * technology: the legend, summary and table beside it say the same in text.
 */
export function RevenueChart(props: { revenue: CurrencyRevenue; days: string[] }) {
  const box = useRef<HTMLDivElement>(null);
  const { revenue, days } = props;
  // Drawn again only when what it shows changes, not on every refresh of the page's data.
  const shown = JSON.stringify([days, revenue.currency, revenue.series.map((one) => [one.label, `${one.perDay}`])]);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let running = days.map(() => 0n);
    const stacked = revenue.series.map((one) => {
      running = running.map((sum, index) => sum + one.perDay[index]!);
      return running.map((value) => drawn(value, revenue.decimals));
    });
    const order = revenue.series.map((_one, index) => index).reverse();
    const axisAmount = new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency: revenue.currency,
      notation: 'compact',
    });
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        // Days are UTC days, whatever the browser's time zone.
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { show: false },
        scales: {
          // Half a day either side, so the first and last bars are whole.
          x: { time: true, range: (_plot, min, max) => [min - DAY_SECONDS / 2, max + DAY_SECONDS / 2] },
          y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          { stroke: INK, grid: { stroke: GRID }, ticks: { stroke: GRID } },
          {
            stroke: INK,
            grid: { stroke: GRID },
            ticks: { stroke: GRID },
            size: 72,
            values: (_plot, splits) => splits.map((value) => axisAmount.format(value)),
          },
        ],
        series: [
          {},
          ...order.map((index) => ({
            label: revenue.series[index]!.label,
            fill: seriesColour(index),
            stroke: seriesColour(index),
            width: 0,
            paths: uPlot.paths.bars!({ size: [0.7, 48] }),
            points: { show: false },
          })),
        ],
      },
      [days.map((day) => Date.parse(`${day}T00:00:00.000Z`) / 1000), ...order.map((index) => stacked[index]!)],
      element,
    );
    const resized = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [shown]);

  return <div ref={box} class="chart" aria-hidden="true" />;
}
