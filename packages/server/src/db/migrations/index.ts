import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.ts';
import * as payments from './0002_payments.ts';
import * as webhooks from './0003_webhooks.ts';
import * as evmRelayer from './0004_evm_relayer.ts';
import * as solanaJournal from './0005_solana_journal.ts';
import * as gateway from './0006_gateway.ts';
import * as paymentListSearch from './0007_payment_list_search.ts';
import * as feesSettlement from './0008_fees_settlement.ts';
import * as buyerDataCollection from './0009_buyer_data_collection.ts';
import * as checkout from './0010_checkout.ts';
import * as paymentStats from './0011_payment_stats.ts';
import * as confirmedTerms from './0012_confirmed_terms.ts';
import * as paymentStatsDeltas from './0013_payment_stats_deltas.ts';
import * as merchantChangeNotifications from './0014_merchant_change_notifications.ts';
import * as paymentBuyers from './0015_payment_buyers.ts';
import * as paymentListTimeCover from './0016_payment_list_time_cover.ts';
import * as serialStatsFold from './0017_serial_stats_fold.ts';
import * as chainWatches from './0018_chain_watches.ts';
import * as paymentSubmissions from './0019_payment_submissions.ts';
import * as merchantSoftDelete from './0020_merchant_soft_delete.ts';
import * as refunds from './0021_refunds.ts';
import * as settlementChangeNotifications from './0022_settlement_change_notifications.ts';
import * as partnerPaymentList from './0023_partner_payment_list.ts';
import * as pendingRedelivery from './0024_pending_redelivery.ts';
import * as expirySweep from './0025_expiry_sweep.ts';
import * as solanaPay from './0026_solana_pay.ts';
import * as evmDeposits from './0027_evm_deposits.ts';
import * as eventStream from './0028_event_stream.ts';
import * as exceptionRefunds from './0029_exception_refunds.ts';
import * as leanStatsTrigger from './0030_lean_stats_trigger.ts';
import * as depositWaits from './0031_deposit_waits.ts';
import * as depositRecoveries from './0032_deposit_recoveries.ts';
import * as depositRecipientCursor from './0033_deposit_recipient_cursor.ts';
import * as ledger from './0034_ledger.ts';
import * as webhookDeliverySubject from './0035_webhook_delivery_subject.ts';
import * as depositReadThrough from './0036_deposit_read_through.ts';
import * as sweepReconciliation from './0037_sweep_reconciliation.ts';
import * as paymentDepositAddress from './0038_payment_deposit_address.ts';
import * as solanaPayReadThrough from './0039_solana_pay_read_through.ts';
import * as openingDeposits from './0040_opening_deposits.ts';
import * as dashboardSessions from './0041_dashboard_sessions.ts';
import * as x402Payments from './0042_x402_payments.ts';
import * as settlementBatchList from './0043_settlement_batch_list.ts';
import * as eventPayment from './0044_event_payment.ts';
import * as payoutsInFlight from './0045_payouts_in_flight.ts';
import * as solanaPayCosignedTransactions from './0046_solana_pay_cosigned_transactions.ts';
import * as refusedTransfers from './0047_refused_transfers.ts';
import * as x402MerchantPayTo from './0048_x402_merchant_pay_to.ts';
import * as collectorInflows from './0049_collector_inflows.ts';
import * as inflowReturns from './0050_inflow_returns.ts';
import * as solanaInflowCursors from './0051_solana_inflow_cursors.ts';
import * as merchantDepositRecoveries from './0052_merchant_deposit_recoveries.ts';
import * as networkFeesFromOperator from './0053_network_fees_from_operator.ts';
import * as x402SolanaMerchantPayTo from './0054_x402_solana_merchant_pay_to.ts';
import * as solanaPayFeeReservations from './0055_solana_pay_fee_reservations.ts';
import * as solanaX402AccountInflows from './0056_solana_x402_account_inflows.ts';
import * as paymentLinks from './0057_payment_links.ts';
import * as pointOfSale from './0058_point_of_sale.ts';
import * as addressScreening from './0059_address_screening.ts';
import * as paymentOrigin from './0060_payment_origin.ts';
import * as eip2612Permits from './0061_eip2612_permits.ts';
import * as collectorAcceptedTransactions from './0062_collector_accepted_transactions.ts';

/** Every schema change, in order; names are permanent once released. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_payments': payments,
  '0003_webhooks': webhooks,
  '0004_evm_relayer': evmRelayer,
  '0005_solana_journal': solanaJournal,
  '0006_gateway': gateway,
  '0007_payment_list_search': paymentListSearch,
  '0008_fees_settlement': feesSettlement,
  '0009_buyer_data_collection': buyerDataCollection,
  '0010_checkout': checkout,
  '0011_payment_stats': paymentStats,
  '0012_confirmed_terms': confirmedTerms,
  '0013_payment_stats_deltas': paymentStatsDeltas,
  '0014_merchant_change_notifications': merchantChangeNotifications,
  '0015_payment_buyers': paymentBuyers,
  '0016_payment_list_time_cover': paymentListTimeCover,
  '0017_serial_stats_fold': serialStatsFold,
  '0018_chain_watches': chainWatches,
  '0019_payment_submissions': paymentSubmissions,
  '0020_merchant_soft_delete': merchantSoftDelete,
  '0021_refunds': refunds,
  '0022_settlement_change_notifications': settlementChangeNotifications,
  '0023_partner_payment_list': partnerPaymentList,
  '0024_pending_redelivery': pendingRedelivery,
  '0025_expiry_sweep': expirySweep,
  '0026_solana_pay': solanaPay,
  '0027_evm_deposits': evmDeposits,
  '0028_event_stream': eventStream,
  '0029_exception_refunds': exceptionRefunds,
  '0030_lean_stats_trigger': leanStatsTrigger,
  '0031_deposit_waits': depositWaits,
  '0032_deposit_recoveries': depositRecoveries,
  '0033_deposit_recipient_cursor': depositRecipientCursor,
  '0034_ledger': ledger,
  '0035_webhook_delivery_subject': webhookDeliverySubject,
  '0036_deposit_read_through': depositReadThrough,
  '0037_sweep_reconciliation': sweepReconciliation,
  '0038_payment_deposit_address': paymentDepositAddress,
  '0039_solana_pay_read_through': solanaPayReadThrough,
  '0040_opening_deposits': openingDeposits,
  '0041_dashboard_sessions': dashboardSessions,
  '0042_x402_payments': x402Payments,
  '0043_settlement_batch_list': settlementBatchList,
  '0044_event_payment': eventPayment,
  '0045_payouts_in_flight': payoutsInFlight,
  '0046_solana_pay_cosigned_transactions': solanaPayCosignedTransactions,
  '0047_refused_transfers': refusedTransfers,
  '0048_x402_merchant_pay_to': x402MerchantPayTo,
  '0049_collector_inflows': collectorInflows,
  '0050_inflow_returns': inflowReturns,
  '0051_solana_inflow_cursors': solanaInflowCursors,
  '0052_merchant_deposit_recoveries': merchantDepositRecoveries,
  '0053_network_fees_from_operator': networkFeesFromOperator,
  '0054_x402_solana_merchant_pay_to': x402SolanaMerchantPayTo,
  '0055_solana_pay_fee_reservations': solanaPayFeeReservations,
  '0056_solana_x402_account_inflows': solanaX402AccountInflows,
  '0057_payment_links': paymentLinks,
  '0058_point_of_sale': pointOfSale,
  '0059_address_screening': addressScreening,
  '0060_payment_origin': paymentOrigin,
  '0061_eip2612_permits': eip2612Permits,
  '0062_collector_accepted_transactions': collectorAcceptedTransactions,
};
