import { useEffect, useState } from 'preact/hooks';
import { getJson, onSessionEnded } from '../ui/api.ts';
import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { useLiveData } from '../ui/liveData.ts';
import { followLinksWithin, type Location, navigate, useLocation, useHeadingFocusOnNavigation } from '../ui/router.ts';
import type { NetworksAnswer, Session } from './apiTypes.ts';
import { DevelopersPage } from './developersPage.tsx';
import { Layout, type Section } from './layout.tsx';
import { MerchantPage } from './merchantPage.tsx';
import { MerchantsPage } from './merchantsPage.tsx';
import { NetworkDirectory } from './networks.ts';
import { OverviewPage } from './overviewPage.tsx';
import { OVERVIEW_PATH, SIGN_IN_PATH } from './paths.ts';
import { PaymentPage } from './paymentPage.tsx';
import { PaymentsPage } from './paymentsPage.tsx';
import { readSession, signOut } from './sessionApi.ts';
import type { DashboardSettings } from './settings.ts';
import { SettlementBatchPage } from './settlementBatchPage.tsx';
import { SettlementsPage } from './settlementsPage.tsx';
import { SignInPage } from './signInPage.tsx';
import { WebhookPage } from './webhookPage.tsx';

/** The page after signing in, and at `/dashboard`. */
const LANDING_PATH = OVERVIEW_PATH;

type Route =
  | { page: 'sign-in' }
  | { page: 'overview' }
  | { page: 'payments' }
  | { page: 'payment'; paymentId: string }
  | { page: 'settlements' }
  | { page: 'settlement'; batchId: string }
  | { page: 'merchants' }
  | { page: 'merchant'; merchantId: string }
  | { page: 'developers' }
  | { page: 'webhook'; endpointId: string }
  | { page: 'not-found' };

/** The section of the dashboard each page belongs to. */
const SECTION_OF: Record<Route['page'], Section | undefined> = {
  'sign-in': undefined,
  overview: 'overview',
  payments: 'payments',
  payment: 'payments',
  settlements: 'settlements',
  settlement: 'settlements',
  merchants: 'merchants',
  merchant: 'merchants',
  developers: 'developers',
  webhook: 'developers',
  'not-found': undefined,
};

/** The page a path names. */
export function routeOf(path: string): Route {
  let parts: string[];
  try {
    parts = path.replace(/\/+$/, '').split('/').slice(2).map(decodeURIComponent);
  } catch {
    return { page: 'not-found' };
  }
  if (parts.length === 0) return { page: 'overview' };
  if (parts[0] === 'sign-in' && parts.length === 1) return { page: 'sign-in' };
  if (parts[0] === 'overview' && parts.length === 1) return { page: 'overview' };
  if (parts[0] === 'payments' && parts.length === 1) return { page: 'payments' };
  if (parts[0] === 'payments' && parts.length === 2) return { page: 'payment', paymentId: parts[1]! };
  if (parts[0] === 'settlements' && parts.length === 1) return { page: 'settlements' };
  if (parts[0] === 'settlements' && parts.length === 2) return { page: 'settlement', batchId: parts[1]! };
  if (parts[0] === 'merchants' && parts.length === 1) return { page: 'merchants' };
  if (parts[0] === 'merchants' && parts.length === 2) return { page: 'merchant', merchantId: parts[1]! };
  if (parts[0] === 'developers' && parts.length === 1) return { page: 'developers' };
  if (parts[0] === 'developers' && parts[1] === 'webhooks' && parts.length === 3) {
    return { page: 'webhook', endpointId: parts[2]! };
  }
  return { page: 'not-found' };
}

/** Where to go after signing in: the page asked for before, when it is a dashboard page. */
function afterSignIn(location: Location): string {
  const next = location.query.get('next');
  return next?.startsWith('/dashboard/') && !next.startsWith(SIGN_IN_PATH) ? next : LANDING_PATH;
}

function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        The dashboard has no page at this address. <a href={LANDING_PATH}>Go to the overview</a>.
      </p>
    </>
  );
}

/**
 * The dashboard: it asks the service for the browser's session first; without one every page is the sign-in page,
 * with one the page the path names. Everything a page shows comes from the API, with the session's cookie.
 */
export function App(props: { settings: DashboardSettings }) {
  const location = useLocation();
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>();
  const [sessionFailure, setSessionFailure] = useState<Error | undefined>();
  const networks = useLiveData(
    'networks',
    async (signal) =>
      new NetworkDirectory(
        (await getJson<NetworksAnswer>('/v1/networks', { signal })).body.networks,
        props.settings.explorerUrls,
      ),
    () => undefined,
  );
  const route = routeOf(location.path);

  useEffect(() => followLinksWithin('/dashboard'), []);
  useEffect(() => {
    onSessionEnded(() => setSession(null));
    readSession().then((found) => setSession(found ?? null), setSessionFailure);
  }, []);

  // The sign-in page has its own address, which keeps the page asked for; signed in, that page is shown instead.
  useEffect(() => {
    if (session === null && route.page !== 'sign-in') {
      const next = `${location.path}${location.query.size ? `?${location.query}` : ''}`;
      navigate(`${SIGN_IN_PATH}?${new URLSearchParams({ next })}`, { replace: true });
    }
    if (session && route.page === 'sign-in') navigate(afterSignIn(location), { replace: true });
    // `/dashboard` shows the landing page under its own address, which the section links name.
    if (session && route.page === 'overview' && location.path !== OVERVIEW_PATH) {
      navigate(`${OVERVIEW_PATH}${location.query.size ? `?${location.query}` : ''}`, { replace: true });
    }
  }, [session, route.page, location.path]);

  useHeadingFocusOnNavigation(location.path, session);

  if (sessionFailure) return <ErrorNotice error={sessionFailure} prefix="The dashboard could not start:" />;
  if (session === undefined) return <p class="loading">Loading the dashboard…</p>;
  if (session === null) return <SignInPage location={location} onSignedIn={setSession} />;
  if (route.page === 'sign-in') return <p class="loading">Loading the dashboard…</p>;

  const leave = async () => {
    await signOut(session);
    setSession(null);
    navigate(SIGN_IN_PATH, { replace: true });
  };
  const section: Section | undefined = SECTION_OF[route.page];
  return (
    <Layout session={session} section={section} onSignOut={leave}>
      {route.page === 'overview' && (
        <OverviewPage location={location} networks={networks.data} settings={props.settings} />
      )}
      {route.page === 'payments' && (
        <PaymentsPage location={location} networks={networks.data} settings={props.settings} />
      )}
      {route.page === 'payment' && (
        <PaymentPage
          paymentId={route.paymentId}
          merchantId={location.query.get('merchantId') ?? undefined}
          networks={networks.data}
          session={session}
        />
      )}
      {route.page === 'settlements' && <SettlementsPage location={location} networks={networks.data} />}
      {route.page === 'settlement' && <SettlementBatchPage batchId={route.batchId} networks={networks.data} />}
      {route.page === 'merchants' && <MerchantsPage session={session} location={location} />}
      {route.page === 'merchant' && (
        <MerchantPage session={session} merchantId={route.merchantId} networks={networks.data} />
      )}
      {route.page === 'developers' && <DevelopersPage session={session} settings={props.settings} />}
      {route.page === 'webhook' && <WebhookPage session={session} endpointId={route.endpointId} location={location} />}
      {route.page === 'not-found' && <NotFoundPage />}
    </Layout>
  );
}
