import { afterEach, describe, expect, inject, it } from 'vitest';
import { type ChainFollower, ChainFollowers } from '../../src/chains/chainFollowers.ts';

/** A follower that counts its passes and asks to rest a minute after each: only new work brings the next one sooner. */
function restingFollower(chain: string) {
  let newWork = false;
  const follower: ChainFollower & { passes: number; giveWork(): void } = {
    chain,
    passes: 0,
    step: async () => {
      follower.passes += 1;
      return { nextStepInMs: 60_000 };
    },
    takeNewWork: () => {
      const had = newWork;
      newWork = false;
      return had;
    },
    giveWork: () => {
      newWork = true;
    },
  };
  return follower;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('ChainFollowers: one pass at a time per network, the next one sooner when new work comes', () => {
  let followers: ChainFollowers | undefined;
  afterEach(() => followers?.stop());

  it('makes the next pass at once when new work comes while the follower rests, and not before', async () => {
    const follower = restingFollower(`eip155:${Date.now()}`);
    followers = new ChainFollowers(inject('databaseUrl'), [follower]);
    await until(() => follower.passes === 1);
    // Resting: a minute of no pass, unless told of new work.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(follower.passes).toBe(1);
    follower.giveWork();
    await until(() => follower.passes === 2);
    follower.giveWork();
    await until(() => follower.passes === 3);
  });
});
