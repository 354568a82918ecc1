import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ChargeScreen } from './chargeScreen.tsx';
import {
  type Charge,
  claimPairing,
  type Device,
  forgetDeviceKey,
  onDeviceRevoked,
  PosFailure,
  readDevice,
  storedDeviceKey,
} from './pointOfSaleApi.ts';
import { TillScreen } from './tillScreen.tsx';
import { TodayScreen } from './todayScreen.tsx';

const REVOKED = 'This device was unpaired from the dashboard.';

type Screen = { name: 'till' } | { name: 'charge'; charge: Charge } | { name: 'today' };

type Pairing =
  | { state: 'loading' }
  | { state: 'unpaired'; problem?: string }
  | { state: 'offline' }
  | { state: 'paired'; device: Device };

/** The pairing token of a pairing link (`/pos#pair=<token>`), taken out of the address bar at once. */
function takePairingToken(): string | undefined {
  const token = /^#pair=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
  if (token) history.replaceState(null, '', location.pathname);
  return token;
}

async function openDevice(): Promise<Pairing> {
  const token = takePairingToken();
  try {
    if (token) return { state: 'paired', device: await claimPairing(token) };
    if (!storedDeviceKey()) return { state: 'unpaired' };
    return { state: 'paired', device: await readDevice() };
  } catch (error) {
    if (!(error instanceof PosFailure)) return { state: 'offline' };
    if (token) return { state: 'unpaired', problem: error.message };
    if (error.status === 401) {
      forgetDeviceKey();
      return { state: 'unpaired', problem: REVOKED };
    }
    return { state: 'unpaired', problem: error.message };
  }
}

function Unpaired(props: { problem?: string }) {
  return (
    <main class="message">
      <h1>Pair this device</h1>
      {props.problem && (
        <p class="problem" role="alert">
          {props.problem}
        </p>
      )}
      <p>
        In the dashboard, open Point of sale, pair a device, and open its link on this device (or scan its QR code).
      </p>
    </main>
  );
}

function App() {
  const [pairing, setPairing] = useState<Pairing>({ state: 'loading' });
  const [screen, setScreen] = useState<Screen>({ name: 'till' });
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    void openDevice().then(setPairing);
    onDeviceRevoked(() => setPairing({ state: 'unpaired', problem: REVOKED }));
    // A pairing link opened while the till is open changes only the fragment.
    const pairAgain = () => {
      if (!location.hash.startsWith('#pair=')) return;
      setScreen({ name: 'till' });
      void openDevice().then(setPairing);
    };
    const update = () => setOnline(navigator.onLine);
    window.addEventListener('hashchange', pairAgain);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('hashchange', pairAgain);
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);

  const banner = !online && (
    <p class="offline" role="status">
      Offline: charges need a connection.
    </p>
  );
  if (pairing.state === 'loading') return <p class="loading">Opening the till…</p>;
  if (pairing.state === 'offline') {
    return (
      <main class="message">
        <h1>No connection</h1>
        <p>The till needs a connection to the payment service. It opens again once this device is back online.</p>
        <button type="button" class="primary" onClick={() => void openDevice().then(setPairing)}>
          Try again
        </button>
      </main>
    );
  }
  if (pairing.state === 'unpaired') return <Unpaired problem={pairing.problem} />;
  const { device } = pairing;
  return (
    <>
      <header class="bar">
        <span class="merchant">{device.merchant.name}</span>
        <span class="device">{device.name}</span>
      </header>
      {banner}
      {screen.name === 'till' && (
        <TillScreen
          device={device}
          onCharged={(charge) => setScreen({ name: 'charge', charge })}
          onToday={() => setScreen({ name: 'today' })}
        />
      )}
      {screen.name === 'charge' && (
        <ChargeScreen first={screen.charge} device={device} onDone={() => setScreen({ name: 'till' })} />
      )}
      {screen.name === 'today' && (
        <TodayScreen
          onBack={() => setScreen({ name: 'till' })}
          onOpen={(charge) => setScreen({ name: 'charge', charge })}
        />
      )}
    </>
  );
}

const root = document.getElementById('pos');
if (root) render(<App />, root);
// The shell and its assets work offline once seen; the API is never cached.
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/pos/sw.js', { scope: '/pos' });
