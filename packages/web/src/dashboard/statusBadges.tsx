import { refundMarks, shownStatus, statusLabel } from './paymentFormat.ts';

/** A status in words on its colour; `label` names a status that is not a payment's (a refund's, say). */
export function StatusBadge(props: { status: string; label?: string }) {
  return <span class={`status status-${props.status}`}>{props.label ?? statusLabel(props.status)}</span>;
}

/** A payment's status, and beside it what its refunds did (partly or wholly refunded, a refund on its way). */
export function PaymentStatusBadges(props: {
  payment: Parameters<typeof refundMarks>[0] & Parameters<typeof shownStatus>[0];
}) {
  return (
    <span class="status-badges">
      <StatusBadge status={shownStatus(props.payment)} />
      {refundMarks(props.payment).map((mark) => (
        <StatusBadge key={mark.kind} status={mark.kind} label={mark.label} />
      ))}
    </span>
  );
}
