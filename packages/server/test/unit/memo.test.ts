import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { memoised, sharedFor } from '../../src/memo.ts';

describe('memoised', () => {
  it('loads once while the promise is held, and again after it failed', async () => {
    const held = new Map<string, Promise<number>>();
    let loads = 0;
    const failing = () => {
      loads += 1;
      return Promise.reject(new Error('node down'));
    };
    await expect(memoised(held, 'a', failing)).rejects.toThrow('node down');
    expect(held.has('a')).toBe(false);

    const succeeding = async () => {
      loads += 1;
      return 7;
    };
    const [first, second] = await Promise.all([memoised(held, 'a', succeeding), memoised(held, 'a', succeeding)]);
    expect([first, second, loads]).toEqual([7, 7, 2]);
    expect(await memoised(held, 'a', succeeding)).toBe(7);
    expect(loads).toBe(2);
  });

  it('keeps a newer promise when an older one for the key fails late', async () => {
    const held = new Map<string, Promise<string>>();
    let failOld: (error: Error) => void = () => {};
    const old = memoised(held, 'k', () => new Promise<string>((_, reject) => (failOld = reject)));
    held.delete('k');
    const newer = memoised(held, 'k', async () => 'new');
    failOld(new Error('late'));
    await expect(old).rejects.toThrow('late');
    expect(held.get('k')).toBe(newer);
  });
});

describe('sharedFor', () => {
  it('reads once for every caller within its age, and again once the reading is older', async () => {
    let reads = 0;
    const height = sharedFor(50, async () => {
      reads += 1;
      return BigInt(reads);
    });
    expect(await Promise.all([height(), height(), height()])).toEqual([1n, 1n, 1n]);
    expect(reads).toBe(1);
    await sleep(60);
    expect(await height()).toBe(2n);
    expect(reads).toBe(2);
  });

  it('does not keep a failed reading', async () => {
    let reads = 0;
    const height = sharedFor(60_000, async () => {
      reads += 1;
      if (reads === 1) throw new Error('node down');
      return 9n;
    });
    await expect(height()).rejects.toThrow('node down');
    expect(await height()).toBe(9n);
    expect(reads).toBe(2);
  });
});
