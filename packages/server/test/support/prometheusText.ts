import { call } from './testServer.ts';

/** One sample of Prometheus' text exposition: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comments left out). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key as string] = JSON.parse(`"${value}"`);
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The server's `/metrics`, with a lookup of one series' value (undefined when the series is absent). */
export async function scrape(server: { url: string }) {
  const result = await call(server, '/metrics');
  if (result.status !== 200) throw new Error(`/metrics answered ${result.status}: ${result.text}`);
  const samples = parseSamples(result.text);
  return {
    text: result.text,
    samples,
    value(name: string, labels: Record<string, string> = {}): number | undefined {
      return samples.find(
        (sample) =>
          sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      )?.value;
    },
  };
}
