import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type ScreeningAnswer, type ScreeningProvider, ScreeningUnavailableError } from './addressScreening.ts';

/** What the screening service answers (README, Address screening). */
const ScreeningServiceAnswer = Type.Object({
  version: Type.Optional(Type.String({ maxLength: 200 })),
  results: Type.Array(
    Type.Object({
      account: Type.String(),
      blocked: Type.Boolean(),
      reason: Type.Optional(Type.String({ maxLength: 500 })),
    }),
  ),
});
type ScreeningServiceAnswer = Static<typeof ScreeningServiceAnswer>;

/**
 * Screening by an HTTP service the operator runs or buys (SCREENING_URL): `POST {"accounts": [CAIP-10…]}`, answered
 * 200 with `{"version"?, "results": [{"account", "blocked", "reason"?}]}` naming every account asked. No answer
 * within `timeoutMs`, another status, or an answer that leaves an account out is `ScreeningUnavailableError`. The URL
 * is the operator's own setting, never a user's, so it may be on a private network.
 */
export class HttpScreening implements ScreeningProvider {
  readonly name = 'http';

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async screen(accounts: string[]): Promise<ScreeningAnswer> {
    let body: unknown;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ accounts }),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      if (response.status !== 200)
        throw new ScreeningUnavailableError(`the screening service answered ${response.status}`);
      body = await response.json();
    } catch (error) {
      if (error instanceof ScreeningUnavailableError) throw error;
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ScreeningUnavailableError(
        timedOut
          ? `the screening service did not answer within ${this.timeoutMs} ms`
          : `the screening service failed: ${(error as Error).message}`,
      );
    }
    if (!Value.Check(ScreeningServiceAnswer, body))
      throw new ScreeningUnavailableError('the screening service answered an unknown shape');
    const answer: ScreeningServiceAnswer = body;
    const byAccount = new Map(answer.results.map((result) => [result.account, result]));
    return {
      version: answer.version ?? null,
      verdicts: accounts.map((account) => {
        const result = byAccount.get(account);
        if (!result) throw new ScreeningUnavailableError(`the screening service left ${account} out of its answer`);
        return { account, blocked: result.blocked, reason: result.reason };
      }),
    };
  }
}
