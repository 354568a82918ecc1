import { ApiFailure } from '../ui/api.ts';
import { CopyableId, ErrorNotice, Fact, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime, formatFiat, formatTokenExact } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { loadMerchant } from './merchantsApi.ts';
import type { NetworkDirectory } from './networks.ts';
import { merchantPath, paymentPath, SETTLEMENTS_PATH } from './paths.ts';
import { isNotFound } from './paymentsApi.ts';
import { loadSettlementBatch, type SettlementBatchDetail } from './settlementsApi.ts';
import { SettlementStatus, tokenOfBatch } from './settlementsPage.tsx';
import { TransactionHash } from './transactionHash.tsx';

/** How often the page of a batch whose transfer is not final asks again, to show it land. */
const OPEN_BATCH_REFRESH_MS = 5_000;

function BatchDetails(props: { batch: SettlementBatchDetail; networks: NetworkDirectory | undefined }) {
  const { batch, networks } = props;
  const token = tokenOfBatch(batch, networks);
  const amount = (value: string) => formatTokenExact(value, token);
  // The name where the API gives it; a deleted merchant, or a session without the `merchants` scope, shows the id.
  const merchant = useLiveData(
    `merchant ${batch.merchantId}`,
    (signal) => loadMerchant(batch.merchantId, signal).catch(() => undefined),
    () => undefined,
  );
  return (
    <>
      <p class="payment-status" aria-live="polite">
        Status: <SettlementStatus status={batch.status} />
        {(batch.status === 'claimed' || batch.status === 'sent') && (
          <span class="hint"> This page updates by itself.</span>
        )}
      </p>
      <dl class="facts">
        <Fact term="Amount">
          {amount(batch.amount)} on {networks?.networkName(batch.network) ?? batch.network}
        </Fact>
        <Fact term="Fees">{amount(batch.fees)}</Fact>
        {batch.refundsDeducted !== '0' && <Fact term="Refunds deducted">{amount(batch.refundsDeducted)}</Fact>}
        <Fact term="Merchant">
          <a href={merchantPath(batch.merchantId)}>{merchant.data?.name ?? batch.merchantId}</a>{' '}
          <CopyableId id={batch.merchantId} what="merchant id" />
        </Fact>
        <Fact term="Destination">
          <code class="hash">{batch.destination}</code>
        </Fact>
        <Fact term="Transaction">
          {batch.txHash ? (
            <TransactionHash hash={batch.txHash} chain={batch.network} networks={networks} />
          ) : (
            'None yet'
          )}
        </Fact>
        {batch.failureReason && <Fact term="Why it failed">{batch.failureReason}</Fact>}
        <Fact term="Made">{formatDateTime(batch.createdAt)}</Fact>
        {batch.completedAt && (
          <Fact term={batch.status === 'failed' ? 'Failed' : 'Confirmed'}>{formatDateTime(batch.completedAt)}</Fact>
        )}
        <Fact term="Batch id">
          <code>{batch.id}</code>
        </Fact>
      </dl>
      <section aria-labelledby="batch-payments-heading">
        <h2 id="batch-payments-heading">Payments ({batch.payments.length})</h2>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Payments settled by this batch</caption>
            <thead>
              <tr>
                <th scope="col">Reference</th>
                <th scope="col" class="amount">
                  Amount
                </th>
                <th scope="col" class="amount">
                  Paid
                </th>
                <th scope="col" class="amount">
                  Fees
                </th>
                <th scope="col" class="amount">
                  Net
                </th>
              </tr>
            </thead>
            <tbody>
              {batch.payments.map((payment) => (
                <tr key={payment.paymentId} data-payment-id={payment.paymentId}>
                  <td data-label="Reference">
                    <a href={paymentPath(payment.paymentId, batch.merchantId)}>{payment.referenceId}</a>
                  </td>
                  <td data-label="Amount" class="amount">
                    {formatFiat(payment.fiatAmount)}
                  </td>
                  <td data-label="Paid" class="amount">
                    {amount(payment.paid)}
                  </td>
                  <td data-label="Fees" class="amount">
                    {amount(payment.fees)}
                  </td>
                  <td data-label="Net" class="amount">
                    {amount(payment.net)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

/**
 * One settlement batch (`GET /v1/settlements/{batchId}`): its transfer with the explorer link, and every payment it
 * settled, each linked to its page. While the transfer is not final the page asks again every few seconds.
 */
export function SettlementBatchPage(props: { batchId: string; networks: NetworkDirectory | undefined }) {
  const live = useLiveData(
    props.batchId,
    (signal) => loadSettlementBatch(props.batchId, signal),
    (batch) => (batch.status === 'claimed' || batch.status === 'sent' ? OPEN_BATCH_REFRESH_MS : undefined),
  );
  // An id that is not a batch id at all (400) is not found either, as far as a person is concerned.
  const notFound =
    !live.data &&
    live.error !== undefined &&
    (isNotFound(live.error) || (live.error instanceof ApiFailure && live.error.code === 'params_validation'));
  const heading = notFound ? 'Settlement not found' : 'Settlement batch';
  usePageTitle(heading);
  return (
    <>
      <p class="back">
        <a href={SETTLEMENTS_PATH}>All settlements</a>
      </p>
      <PageHeading>{heading}</PageHeading>
      {notFound && <p>No settlement batch of yours has the id {props.batchId}.</p>}
      {live.error && !notFound && (
        <ErrorNotice error={live.error} prefix={live.data ? 'Could not refresh the batch:' : undefined} />
      )}
      {live.loading && <p class="loading">Loading the batch…</p>}
      {live.data && <BatchDetails batch={live.data} networks={props.networks} />}
    </>
  );
}
