import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('settlement configuration', () => {
  it('settles every 10 s on the devnet and every 15 min on real chains unless told otherwise', () => {
    expect(loadConfig({}).settlement).toEqual({ intervalMs: 10_000, minimumBatch: '0' });
    expect(loadConfig({ CHAINS: 'mainnet' }).settlement.intervalMs).toBe(900_000);
    expect(loadConfig({ SETTLEMENT_INTERVAL_MS: '2500', SETTLEMENT_MIN_BATCH: '12.5' }).settlement).toEqual({
      intervalMs: 2500,
      minimumBatch: '12.5',
    });
  });

  it('refuses intervals and minimum batches that are not numbers in range', () => {
    for (const env of [
      { SETTLEMENT_INTERVAL_MS: '10s' },
      { SETTLEMENT_INTERVAL_MS: '50' },
      { SETTLEMENT_MIN_BATCH: '-1' },
      { SETTLEMENT_MIN_BATCH: '1e3' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe('buyer transfer deadline configuration', () => {
  it("gives the buyer's own transfer 15 minutes to be mined unless told otherwise, and refuses a deadline out of range", () => {
    expect(loadConfig({}).buyerTransferDeadlineMs).toBe(900_000);
    expect(loadConfig({ BUYER_TRANSFER_DEADLINE_MS: '120000' }).buyerTransferDeadlineMs).toBe(120_000);
    for (const raw of ['9999', '86400001', '2m', '-5']) {
      expect(() => loadConfig({ BUYER_TRANSFER_DEADLINE_MS: raw }), raw).toThrow(ConfigError);
    }
  });
});

describe('request timeout configuration', () => {
  it('gives a request 30 s and its headers 10 s unless told otherwise, headers never longer than the request', () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({
      requestTimeoutMs: 5_000,
      headersTimeoutMs: 5_000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      /HEADERS_TIMEOUT_MS \(6000\) must not exceed REQUEST_TIMEOUT_MS \(5000\)/,
    );
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(ConfigError);
  });
});
