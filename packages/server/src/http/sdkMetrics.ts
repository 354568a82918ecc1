import type { IncomingHttpHeaders } from 'node:http';
import { Counter, type Registry } from 'prom-client';

/** Distinct (name, platform) pairs kept as series; headers are the caller's to choose, memory is not. */
const MAX_SERIES = 100;
const LABEL_VALUE = /^[A-Za-z0-9 ._@/+-]{1,64}$/;

function labelValue(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return 'none';
  return LABEL_VALUE.test(value) ? value : 'invalid';
}

/**
 * Counts requests by the SDK that sent them (`Sdk-Name`, `Sdk-Platform`, as WalletConnect Pay's SDKs send them;
 * `Sdk-Version` is accepted but not a label, so versions cannot multiply the series).
 */
export class SdkRequestCounter {
  private readonly requests: Counter<'sdk_name' | 'sdk_platform'>;
  private readonly series = new Set<string>();

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'paygate_sdk_requests_total',
      help: 'Requests that named their SDK, by Sdk-Name and Sdk-Platform',
      labelNames: ['sdk_name', 'sdk_platform'],
      registers: [registry],
    });
  }

  count(headers: IncomingHttpHeaders): void {
    if (headers['sdk-name'] === undefined) return;
    let name = labelValue(headers['sdk-name']);
    let platform = labelValue(headers['sdk-platform']);
    const key = `${name}\u0000${platform}`;
    if (!this.series.has(key)) {
      if (this.series.size >= MAX_SERIES) {
        name = 'other';
        platform = 'other';
      } else {
        this.series.add(key);
      }
    }
    this.requests.inc({ sdk_name: name, sdk_platform: platform });
  }
}
