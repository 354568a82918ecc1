import type { ComponentChildren } from 'preact';
import { CopyableId, ErrorNotice, Fact, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime, formatFiat, formatTokenExact } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import type { PaymentDetailAnswer, Session, TokenAmountView } from './apiTypes.ts';
import type { NetworkDirectory } from './networks.ts';
import { PAYMENTS_PATH } from './paths.ts';
import { PaymentActions } from './paymentActions.tsx';
import { aboveZero, REFUND_STATUS_LABELS } from './paymentFormat.ts';
import { PaymentTimeline } from './paymentTimeline.tsx';
import { isNotFound, loadPayment, statusChange } from './paymentsApi.ts';
import { SOURCE_LABELS } from './paymentsQuery.ts';
import { PaymentStatusBadges, StatusBadge } from './statusBadges.tsx';
import { TransactionHash } from './transactionHash.tsx';

/**
 * A pending payment's page asks again as soon as it has an answer: each request waits (long poll) until the status
 * changes, so asking at once leaves no gap in which a change would wait for the next one.
 */
const PENDING_REFRESH_MS = 0;

/** How often a settled payment's page asks again while a refund of it is on its way on chain (no wait to join). */
const REFUND_REFRESH_MS = 3_000;

const EXCEPTION_LABELS: Record<string, string> = {
  underpaid: 'Underpaid',
  overpaid: 'Overpaid',
  paid_late: 'Paid late',
  wrong_token: 'Wrong token',
};

function tokenText(amount: TokenAmountView, networks: NetworkDirectory | undefined): string {
  const token = amount.display
    ? { symbol: amount.display.assetSymbol, decimals: amount.display.decimals }
    : networks?.token(amount.unit);
  const network = amount.display?.networkName;
  return `${formatTokenExact(amount.value, token)}${network ? ` on ${network}` : ''}`;
}

/** The CAIP-2 id a CAIP-19 amount's unit names (`caip19/eip155:8453/erc20:0x…` → `eip155:8453`). */
function chainOfUnit(unit: string): string | undefined {
  return unit.replace(/^caip19\//, '').split('/')[0];
}

function PaymentDetails(props: {
  payment: PaymentDetailAnswer;
  networks: NetworkDirectory | undefined;
  /** What can be done to the payment, shown under its status. */
  actions: ComponentChildren;
}) {
  const { payment, networks } = props;
  const chain = payment.transaction && networks?.chainOf(payment.transaction, payment.tokenAmount?.unit);
  const settlementTx = payment.settlement?.successful?.txId ?? payment.settlement?.txHash;
  const refunded = aboveZero(payment.refundedAmount);
  const refundPending = aboveZero(payment.pendingRefundAmount);
  return (
    <>
      <p class="payment-status" aria-live="polite">
        Status: <PaymentStatusBadges payment={payment} />
        {!payment.isTerminal && <span class="hint"> This page updates by itself.</span>}
      </p>
      {props.actions}
      <section aria-labelledby="amounts-heading">
        <h2 id="amounts-heading">Amounts</h2>
        <dl class="facts">
          <Fact term="Amount">{payment.fiatAmount ? formatFiat(payment.fiatAmount) : '—'}</Fact>
          <Fact term="Paid">{payment.tokenAmount ? tokenText(payment.tokenAmount, networks) : 'Not yet'}</Fact>
          {payment.fees && (
            <Fact term="Fees">
              {tokenText(payment.fees.total, networks)}
              {payment.fees.percentage ? ` (${payment.fees.percentage}%)` : ''}
            </Fact>
          )}
          {refunded && <Fact term="Refunded">{formatFiat(refunded)}</Fact>}
          {refundPending && <Fact term="Refund pending">{formatFiat(refundPending)} on its way back to the buyer</Fact>}
          {payment.settlement && (
            <Fact term="Settlement">
              {payment.settlement.settled && payment.settlement.amount
                ? `Settled: ${tokenText(payment.settlement.amount, networks)}`
                : 'Not settled yet'}
              {settlementTx && (
                <>
                  {' '}
                  <TransactionHash hash={settlementTx} chain={chain} networks={networks} />
                </>
              )}
            </Fact>
          )}
          {payment.failureCode && <Fact term="Why it failed">{payment.failureCode}</Fact>}
        </dl>
      </section>
      <section aria-labelledby="buyer-heading">
        <h2 id="buyer-heading">Buyer and transaction</h2>
        <dl class="facts">
          <Fact term="Buyer account">
            {payment.buyer ? <CopyableId id={payment.buyer.accountCaip10} what="buyer account" /> : 'Not known yet'}
          </Fact>
          {payment.buyer?.accountProviderName && <Fact term="Paid with">{payment.buyer.accountProviderName}</Fact>}
          {payment.transaction && (
            <Fact term="Network">
              {chain ? (networks?.networkName(chain) ?? chain) : payment.transaction.networkId}
            </Fact>
          )}
          <Fact term="Transaction">
            {payment.transaction?.hash ? (
              <TransactionHash hash={payment.transaction.hash} chain={chain} networks={networks} />
            ) : (
              'None yet'
            )}
          </Fact>
        </dl>
      </section>
      {payment.exceptions && (
        <section aria-labelledby="exceptions-heading">
          <h2 id="exceptions-heading">Exceptions</h2>
          <p class="hint">What the buyer sent that did not simply pay the payment.</p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Amount</th>
                  <th scope="col">From</th>
                  <th scope="col">Transaction</th>
                  <th scope="col">Recorded</th>
                </tr>
              </thead>
              <tbody>
                {payment.exceptions.map((exception) => (
                  <tr key={exception.id}>
                    <td data-label="Kind">{EXCEPTION_LABELS[exception.type] ?? exception.type}</td>
                    <td data-label="Amount">
                      {tokenText(exception.amount, networks)}
                      {exception.expected ? ` of ${tokenText(exception.expected, networks)}` : ''}
                    </td>
                    <td data-label="From">
                      <code class="hash">{exception.fromAccountCaip10}</code>
                    </td>
                    <td data-label="Transaction">
                      <TransactionHash
                        hash={exception.transaction.hash}
                        chain={chainOfUnit(exception.amount.unit)}
                        networks={networks}
                        short
                      />
                    </td>
                    <td data-label="Recorded">{formatDateTime(exception.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {payment.refunds && (
        <section aria-labelledby="refunds-heading">
          <h2 id="refunds-heading">Refunds</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Refund</th>
                  <th scope="col">Amount</th>
                  <th scope="col">How</th>
                  <th scope="col">Status</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Transaction</th>
                </tr>
              </thead>
              <tbody>
                {payment.refunds.map((refund) => (
                  <tr key={refund.id} data-refund-id={refund.id}>
                    <td data-label="Refund">
                      <CopyableId id={refund.id} what="refund id" />
                    </td>
                    <td data-label="Amount">
                      {refund.exceptionId && refund.tokenAmount
                        ? formatTokenExact(refund.tokenAmount.value, networks?.token(refund.tokenAmount.unit))
                        : formatFiat(refund.amount)}
                    </td>
                    <td data-label="How">{refund.method === 'onchain' ? 'Sent back on chain' : 'Recorded'}</td>
                    <td data-label="Status">
                      <StatusBadge status={refund.status} label={REFUND_STATUS_LABELS[refund.status]} />
                    </td>
                    <td data-label="Asked">{formatDateTime(refund.createdAt)}</td>
                    <td data-label="Transaction">
                      {refund.txHash ? (
                        <TransactionHash
                          hash={refund.txHash}
                          chain={refund.tokenAmount && chainOfUnit(refund.tokenAmount.unit)}
                          networks={networks}
                          short
                        />
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      <section aria-labelledby="record-heading">
        <h2 id="record-heading">Record</h2>
        <dl class="facts">
          <Fact term="Payment id">
            <CopyableId id={payment.paymentId} what="payment id" />
          </Fact>
          <Fact term="Merchant">
            {payment.merchant.name ?? payment.merchant.id} <CopyableId id={payment.merchant.id} what="merchant id" />
          </Fact>
          <Fact term="Source">{SOURCE_LABELS[payment.source] ?? payment.source}</Fact>
          {payment.paymentLinkId && (
            <Fact term="Payment link">
              <a
                href={`${PAYMENTS_PATH}?${new URLSearchParams({ merchantId: payment.merchant.id, paymentLinkId: payment.paymentLinkId })}`}
              >
                {payment.paymentLinkId}
              </a>
            </Fact>
          )}
          <Fact term="Created">{formatDateTime(payment.createdAt)}</Fact>
          <Fact term="Last updated">{formatDateTime(payment.lastUpdatedAt)}</Fact>
          {payment.settledAt && <Fact term="Settled">{formatDateTime(payment.settledAt)}</Fact>}
        </dl>
      </section>
    </>
  );
}

/**
 * One payment (`GET /v1/payments/{id}`): amounts, buyer, transaction with its explorer link, exceptions and refunds,
 * and cancelling or refunding it. While it is pending the page waits on its status (the API's long poll) and shows
 * each change.
 */
export function PaymentPage(props: {
  paymentId: string;
  merchantId: string | undefined;
  networks: NetworkDirectory | undefined;
  session: Session;
}) {
  const live = useLiveData(
    `${props.paymentId}\n${props.merchantId ?? ''}`,
    async (signal, previous: PaymentDetailAnswer | undefined) => {
      if (previous && !previous.isTerminal) await statusChange(previous, signal);
      return loadPayment(props.paymentId, previous?.merchant.id ?? props.merchantId, signal);
    },
    (payment) =>
      !payment.isTerminal
        ? PENDING_REFRESH_MS
        : payment.refunds?.some((refund) => refund.status === 'pending')
          ? REFUND_REFRESH_MS
          : undefined,
  );
  const notFound = !live.data && live.error !== undefined && isNotFound(live.error);
  const heading = notFound ? 'Payment not found' : live.data ? `Payment ${live.data.referenceId}` : 'Payment';
  usePageTitle(heading);
  return (
    <>
      <p class="back">
        <a href={PAYMENTS_PATH}>All payments</a>
      </p>
      <PageHeading>{heading}</PageHeading>
      {notFound && <p>No payment of yours has the id {props.paymentId}.</p>}
      {live.error && !notFound && (
        <ErrorNotice error={live.error} prefix={live.data ? 'Could not refresh the payment:' : undefined} />
      )}
      {live.loading && <p class="loading">Loading the payment…</p>}
      {live.data && (
        <>
          <PaymentDetails
            payment={live.data}
            networks={props.networks}
            actions={<PaymentActions payment={live.data} session={props.session} onChanged={live.reload} />}
          />
          <PaymentTimeline payment={live.data} session={props.session} />
        </>
      )}
    </>
  );
}
