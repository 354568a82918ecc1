import type { Db } from '../db/database.ts';

/** Where in a payment's life, or a merchant's payouts, an account was screened. */
export type ScreeningStep =
  | 'options'
  | 'confirm'
  | 'deposit'
  | 'x402'
  | 'settlement_destination'
  | 'refund_destination'
  | 'inflow_return'
  | 'settlement';

/** What a provider says of one account. */
export interface ScreeningVerdict {
  /** CAIP-10, as asked. */
  account: string;
  blocked: boolean;
  reason?: string | undefined;
}

/** A provider's answer for the accounts it was asked, with the version of what it decided by (a list's hash). */
export interface ScreeningAnswer {
  verdicts: ScreeningVerdict[];
  version: string | null;
}

/** Where blocked addresses are looked up: the operator's own list, or an HTTP screening service. */
export interface ScreeningProvider {
  name: 'list' | 'http';
  /** Throws `ScreeningUnavailableError` when it cannot answer. */
  screen(accounts: string[]): Promise<ScreeningAnswer>;
}

/**
 * Whether screening blocks the sender (CAIP-10) of a transfer that pays a payment without a confirm (a deposit
 * address, a Solana Pay reference), recorded as a decision of the `deposit` step. A provider that cannot answer while
 * screening fails closed throws, so the follower reads the transfer again on its next pass.
 */
export function senderScreening(screening: AddressScreening) {
  return async (sender: string, paymentId: string): Promise<boolean> => {
    try {
      await screening.check('deposit', [sender], { paymentId });
      return false;
    } catch (error) {
      if (error instanceof AccountBlockedError) return true;
      throw error;
    }
  };
}

/** A provider could not answer (no list loaded, a service down or slow): the setting decides what happens then. */
export class ScreeningUnavailableError extends Error {
  override readonly name = 'ScreeningUnavailableError';
}

/** An account the screening blocks: refused with `account_blocked`. */
export class AccountBlockedError extends Error {
  override readonly name = 'AccountBlockedError';

  constructor(
    readonly account: string,
    readonly step: ScreeningStep,
  ) {
    super(`${account} is blocked by address screening (${step})`);
  }
}

/** What a screened step concerns, recorded with its decisions. */
export interface ScreeningSubject {
  paymentId?: string | undefined;
  merchantId?: string | undefined;
}

/**
 * Address screening: the accounts a payment is offered to and paid from, and the destinations money is sent to, are
 * checked against a provider before anything is offered, accepted or sent, and every decision is recorded with the
 * provider's version. When the provider cannot answer, `onFailure` decides: `closed` refuses (503 with Retry-After
 * for a request, a payout waits), `open` lets the step go on and records that it was not screened. Off when no
 * provider is set.
 */
export class AddressScreening {
  constructor(
    private readonly db: Db,
    private readonly provider: ScreeningProvider | undefined,
    private readonly onFailure: 'closed' | 'open',
    private readonly warn: (message: string) => void,
  ) {}

  get enabled(): boolean {
    return this.provider !== undefined;
  }

  /**
   * Screens `accounts` (CAIP-10) at `step`: throws `AccountBlockedError` for the first blocked one, and
   * `ScreeningUnavailableError` when the provider cannot answer and screening fails closed.
   */
  async check(step: ScreeningStep, accounts: string[], subject: ScreeningSubject = {}): Promise<void> {
    const provider = this.provider;
    if (!provider || !accounts.length) return;
    const asked = [...new Set(accounts)];
    let answer: ScreeningAnswer;
    try {
      answer = await provider.screen(asked);
    } catch (error) {
      if (!(error instanceof ScreeningUnavailableError)) throw error;
      this.warn(`address screening unavailable at ${step}: ${error.message} (screening fails ${this.onFailure})`);
      if (this.onFailure === 'closed') throw error;
      await this.record(step, subject, provider.name, {
        verdicts: asked.map((account) => ({ account, blocked: false, reason: `not screened: ${error.message}` })),
        version: null,
      });
      return;
    }
    await this.record(step, subject, provider.name, answer);
    const blocked = answer.verdicts.find((verdict) => verdict.blocked);
    if (blocked) throw new AccountBlockedError(blocked.account, step);
  }

  /** Whether `account` is blocked at `step`, recorded as `check` records; for a payout that waits rather than fails. */
  async isBlocked(step: ScreeningStep, account: string, subject: ScreeningSubject = {}): Promise<boolean> {
    try {
      await this.check(step, [account], subject);
      return false;
    } catch (error) {
      if (error instanceof AccountBlockedError || error instanceof ScreeningUnavailableError) return true;
      throw error;
    }
  }

  private async record(
    step: ScreeningStep,
    subject: ScreeningSubject,
    provider: ScreeningProvider['name'],
    answer: ScreeningAnswer,
  ): Promise<void> {
    await this.db
      .insertInto('screening_decisions')
      .values(
        answer.verdicts.map((verdict) => ({
          account: verdict.account,
          step,
          payment_id: subject.paymentId ?? null,
          merchant_id: subject.merchantId ?? null,
          blocked: verdict.blocked,
          provider,
          list_version: answer.version,
          reason: verdict.reason ?? null,
        })),
      )
      .execute();
  }
}
