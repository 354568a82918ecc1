import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/db/groupCommit.ts';

/** A commit that records each batch and finishes only when told to. */
function controlledCommit() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const commit = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => releases.push(resolve));
    return items.map((item) => (item < 0 ? new Error(`refused ${item}`) : item * 10));
  };
  return { batches, commit, release: () => releases.shift()?.() };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('commits a lone item at once, and everything added meanwhile in one following batch', async () => {
    const { batches, commit, release } = controlledCommit();
    const group = new GroupCommit(commit);
    const first = group.add(1);
    await settled();
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((item) => group.add(item));
    await settled();
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    await settled();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    release();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it('rejects only the item whose result is an Error', async () => {
    const { commit, release } = controlledCommit();
    const group = new GroupCommit(commit);
    const results = [5, -1, 6].map((item) => group.add(item).then(String, (error: Error) => error.message));
    await settled();
    release();
    await settled();
    release();
    expect(await Promise.all(results)).toEqual(['50', 'refused -1', '60']);
  });

  it('rejects the batch whose commit throws, and goes on with the next', async () => {
    let calls = 0;
    const group = new GroupCommit(async (items: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error('database gone');
      return items;
    });
    const failed = group.add(1);
    const later = [group.add(2), group.add(3)];
    await expect(failed).rejects.toThrow('database gone');
    expect(await Promise.all(later)).toEqual([2, 3]);
    expect(calls).toBe(2);
  });

  it('takes at most maxBatch items per commit', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit(async (items: number[]) => {
      batches.push(items);
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((item) => group.add(item)));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });
});
