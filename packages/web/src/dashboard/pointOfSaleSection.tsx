import { useEffect, useRef, useState } from 'preact/hooks';
import { CopyButton, ErrorNotice, failureMessage } from '../ui/common.tsx';
import { ConfirmAction } from '../ui/confirmAction.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import type { MerchantDetail, Session } from './apiTypes.ts';
import { type DeviceEntry, loadDevices, type PairedDevice, pairDevice, revokeDevice } from './devicesApi.ts';
import { LinkQrCode } from './linkQrCode.tsx';
import { SubmitRow } from './submitRow.tsx';

const STATUS_TEXT: Record<DeviceEntry['status'], string> = {
  pairing: 'Waiting to be paired',
  pairing_expired: 'Pairing link expired',
  paired: 'Paired',
  revoked: 'Revoked',
};

/** Tips as typed (`10, 15, 20`): whole percents from 1 to 100, at most four; undefined when they are not. */
function tipPercentsOf(text: string): number[] | undefined {
  const parts = text
    .split(/[\s,]+/)
    .map((part) => part.replace(/%$/, ''))
    .filter(Boolean);
  if (parts.length > 4 || parts.some((part) => !/^\d{1,3}$/.test(part))) return undefined;
  const percents = [...new Set(parts.map(Number))];
  return percents.every((percent) => percent >= 1 && percent <= 100) ? percents : undefined;
}

function PairForm(props: { session: Session; merchant: MerchantDetail; onPaired: (paired: PairedDevice) => void }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const tipPercents = tipPercentsOf(String(data.get('tips') ?? ''));
    if (!tipPercents) {
      setFailure('Tips are up to four whole percents from 1 to 100, such as 10, 15, 20 (or none).');
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      props.onPaired(
        await pairDevice(props.session, {
          merchantId: props.merchant.id,
          name: String(data.get('name') ?? '').trim(),
          currency: String(data.get('currency') ?? '')
            .trim()
            .toUpperCase(),
          tipPercents,
        }),
      );
    } catch (error) {
      setFailure(failureMessage(error as Error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="panel">
      <summary>Pair a device</summary>
      <form onSubmit={submit} aria-label="Pair a point-of-sale device">
        <div class="field">
          <label for="device-name">Device</label>
          <input id="device-name" name="name" required maxLength={64} placeholder="Front till" />
        </div>
        <div class="field">
          <label for="device-currency">Currency it charges in</label>
          <input id="device-currency" name="currency" required pattern="[A-Za-z]{3}" maxLength={3} value="USD" />
        </div>
        <div class="field">
          <label for="device-tips">Tip presets, in percent</label>
          <input id="device-tips" name="tips" value="10, 15, 20" aria-describedby="device-tips-hint" />
          <p class="hint" id="device-tips-hint">
            Up to four, separated by commas; empty for no tip. A tip is rounded half up to the currency's smallest unit.
          </p>
        </div>
        <SubmitRow
          busy={busy}
          failure={failure}
          failurePrefix="Not paired"
          label="Make a pairing link"
          busyLabel="Making…"
        />
      </form>
    </details>
  );
}

/** The pairing link, once: opened on the device (or its QR code scanned) within ten minutes, it pairs it. */
function PairingLink(props: { paired: PairedDevice; onDone: () => void }) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => panel.current?.focus(), []);
  return (
    <section class="panel created-secret pairing-link" ref={panel} tabIndex={-1} aria-labelledby="pairing-heading">
      <h3 id="pairing-heading">Pair “{props.paired.device.name}”</h3>
      <p class="notice">
        <strong>Open this link on the device, or scan the QR code with it,</strong> before{' '}
        {formatDateTime(props.paired.device.pairingExpiresAt)}. It works once; it is shown only now.
      </p>
      <LinkQrCode link={props.paired.pairingUrl} label="QR code of the pairing link" />
      <div class="copy-row">
        <input type="text" readOnly value={props.paired.pairingUrl} aria-label="Pairing link" spellcheck={false} />
        <CopyButton text={props.paired.pairingUrl} what="pairing link" />
      </div>
      <div class="actions">
        <button type="button" class="primary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

function DeviceRows(props: { session: Session; devices: DeviceEntry[]; onRevoked: () => void }) {
  if (props.devices.length === 0) return <p class="empty">No devices yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Point-of-sale devices</caption>
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Charges in</th>
            <th scope="col">Tips</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.devices.map((device) => (
            <tr key={device.deviceId} data-device-id={device.deviceId}>
              <td data-label="Device">
                {device.name}
                {device.keyPrefix && <code class="hint"> {device.keyPrefix}…</code>}
              </td>
              <td data-label="Charges in">{device.currency}</td>
              <td data-label="Tips">
                {device.tipPercents.length ? device.tipPercents.map((p) => `${p}%`).join(', ') : 'None'}
              </td>
              <td data-label="Status">
                {STATUS_TEXT[device.status]}
                {device.pairedAt && device.status === 'paired' && ` ${formatDateTime(device.pairedAt)}`}
                {device.revokedAt && ` ${formatDateTime(device.revokedAt)}`}
              </td>
              <td data-label="Actions">
                {device.status !== 'revoked' && (
                  <ConfirmAction
                    askLabel={`Revoke ${device.name}`}
                    question={`Revoke ${device.name}? It stops taking payments at once and must be paired again to take any. This cannot be undone.`}
                    confirmLabel="Yes, revoke the device"
                    busyLabel="Revoking…"
                    keepLabel="Keep the device"
                    failurePrefix="Not revoked"
                    onConfirm={async () => {
                      await revokeDevice(props.session, device.deviceId);
                      props.onRevoked();
                    }}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The merchant's point-of-sale devices (`/v1/point-of-sale/devices`): pairing one by a one-time link or its QR code,
 * and revoking one. A device's key can create only this merchant's payments and read its own.
 */
export function PointOfSaleSection(props: { session: Session; merchant: MerchantDetail }) {
  const devices = useLiveData(
    `devices-${props.merchant.id}`,
    (signal) => loadDevices(props.merchant.id, signal),
    () => undefined,
  );
  const [paired, setPaired] = useState<PairedDevice | undefined>();
  return (
    <section aria-labelledby="point-of-sale-heading">
      <h2 id="point-of-sale-heading">Point of sale</h2>
      <p class="hint">
        A shop's tablet or phone takes payments at <code>/pos</code> once paired; each device can only charge this
        merchant and see its own payments.
      </p>
      {paired ? (
        <PairingLink
          paired={paired}
          onDone={() => {
            setPaired(undefined);
            devices.reload();
          }}
        />
      ) : (
        <PairForm
          session={props.session}
          merchant={props.merchant}
          onPaired={(made) => {
            setPaired(made);
            devices.reload();
          }}
        />
      )}
      {devices.error && <ErrorNotice error={devices.error} />}
      {devices.loading && <p class="loading">Loading the devices…</p>}
      {devices.data && <DeviceRows session={props.session} devices={devices.data} onRevoked={devices.reload} />}
    </section>
  );
}
