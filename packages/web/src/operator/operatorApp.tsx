import { useEffect, useState } from 'preact/hooks';
import { onSessionEnded } from '../ui/api.ts';
import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { ConsoleLayout } from '../ui/consoleLayout.tsx';
import { followLinksWithin, navigate, useLocation, useHeadingFocusOnNavigation } from '../ui/router.ts';
import { HealthPage } from './healthPage.tsx';
import { MerchantsPage } from './merchantsPage.tsx';
import { type OperatorSession, readOperatorSession, signOutOperator } from './operatorApi.ts';
import { OperatorSignInPage } from './operatorSignInPage.tsx';
import { PartnerPage } from './partnerPage.tsx';
import { PartnersPage } from './partnersPage.tsx';
import { CONSOLE_NAME, HEALTH_PATH, MERCHANTS_PATH, OPERATOR_SIGN_IN_PATH, PARTNERS_PATH } from './paths.ts';

const SECTIONS = [
  { id: 'partners', label: 'Partners', path: PARTNERS_PATH },
  { id: 'merchants', label: 'Merchants', path: MERCHANTS_PATH },
  { id: 'health', label: 'Health', path: HEALTH_PATH },
] as const;

type Route =
  | { page: 'sign-in' }
  | { page: 'partners' }
  | { page: 'partner'; partnerId: string }
  | { page: 'merchants' }
  | { page: 'health' }
  | { page: 'not-found' };

/** The page a path under `/operator` names. */
export function operatorRouteOf(path: string): Route {
  let parts: string[];
  try {
    parts = path.replace(/\/+$/, '').split('/').slice(2).map(decodeURIComponent);
  } catch {
    return { page: 'not-found' };
  }
  if (parts.length === 0) return { page: 'partners' };
  if (parts[0] === 'sign-in' && parts.length === 1) return { page: 'sign-in' };
  if (parts[0] === 'partners' && parts.length === 1) return { page: 'partners' };
  if (parts[0] === 'partners' && parts.length === 2) return { page: 'partner', partnerId: parts[1]! };
  if (parts[0] === 'merchants' && parts.length === 1) return { page: 'merchants' };
  if (parts[0] === 'health' && parts.length === 1) return { page: 'health' };
  return { page: 'not-found' };
}

function NotFoundPage() {
  usePageTitle('Not found', CONSOLE_NAME);
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        The operator console has no page at this address. <a href={PARTNERS_PATH}>Go to the partners</a>.
      </p>
    </>
  );
}

/**
 * The operator console: it asks the service for the browser's operator session first; without one every page is the
 * sign-in page (which explains the one-time link), with one the page the path names.
 */
export function OperatorApp(props: { apiVersions: string[] }) {
  const location = useLocation();
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<OperatorSession | null | undefined>();
  const [sessionFailure, setSessionFailure] = useState<Error | undefined>();
  const route = operatorRouteOf(location.path);

  useEffect(() => followLinksWithin('/operator'), []);
  useEffect(() => {
    onSessionEnded(() => setSession(null));
    readOperatorSession().then((found) => setSession(found ?? null), setSessionFailure);
  }, []);

  // Signed out, every page is the sign-in page at its own address; signed in, `/operator` and sign-in show partners.
  useEffect(() => {
    if (session === null && route.page !== 'sign-in') navigate(OPERATOR_SIGN_IN_PATH, { replace: true });
    if (session && (route.page === 'sign-in' || (route.page === 'partners' && location.path !== PARTNERS_PATH))) {
      navigate(PARTNERS_PATH, { replace: true });
    }
  }, [session, route.page, location.path]);

  useHeadingFocusOnNavigation(location.path, session);

  if (sessionFailure) return <ErrorNotice error={sessionFailure} prefix="The operator console could not start:" />;
  if (session === undefined) return <p class="loading">Loading the operator console…</p>;
  if (session === null) return <OperatorSignInPage linkSpent={location.query.get('link') === 'spent'} />;
  if (route.page === 'sign-in') return <p class="loading">Loading the operator console…</p>;

  const leave = async () => {
    await signOutOperator(session);
    setSession(null);
    navigate(OPERATOR_SIGN_IN_PATH, { replace: true });
  };
  const section = route.page === 'partner' ? 'partners' : route.page === 'not-found' ? undefined : route.page;
  return (
    <ConsoleLayout
      name="operator"
      home={PARTNERS_PATH}
      sections={SECTIONS}
      section={section}
      identity={<span class="label">Operator</span>}
      onSignOut={leave}
    >
      {route.page === 'partners' && <PartnersPage session={session} />}
      {route.page === 'partner' && (
        <PartnerPage session={session} partnerId={route.partnerId} apiVersions={props.apiVersions} />
      )}
      {route.page === 'merchants' && <MerchantsPage session={session} location={location} />}
      {route.page === 'health' && <HealthPage />}
      {route.page === 'not-found' && <NotFoundPage />}
    </ConsoleLayout>
  );
}
