import { useState } from 'preact/hooks';
import { ApiFailure } from '../ui/api.ts';
import { inWords, PageHeading, usePageTitle } from '../ui/common.tsx';
import type { Location } from '../ui/router.ts';
import type { Session } from './apiTypes.ts';
import { signIn } from './sessionApi.ts';

export const SPENT_LINK_NOTICE =
  'This sign-in link has been used or has expired; ask your operator for a new one (paygate dashboard-link)';

/** Why signing in failed, in words. */
function signInFailure(error: unknown): string {
  if (!(error instanceof ApiFailure)) return 'The service could not be reached; check the connection and try again.';
  if (error.code === 'invalid_api_key') return 'That API key is not valid or has been revoked.';
  if (error.code === 'rate_limited') {
    const wait = error.retryAfterSeconds ? ` Try again in ${inWords(error.retryAfterSeconds)}.` : ' Try again later.';
    return `Too many sign-in attempts from this address.${wait}`;
  }
  return error.message;
}

/**
 * Signing in with an API key: the service answers with a session cookie the page never sees, and the dashboard
 * then acts with that key's scopes. The key leaves the page with the request.
 */
export function SignInPage(props: { location: Location; onSignedIn: (session: Session) => void }) {
  usePageTitle('Sign in');
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const linkSpent = props.location.query.get('link') === 'spent';

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('apiKey') as HTMLInputElement;
    setBusy(true);
    setFailure(undefined);
    try {
      const session = await signIn(field.value.trim());
      field.value = '';
      props.onSignedIn(session);
    } catch (error) {
      setFailure(signInFailure(error));
      setBusy(false);
      field.focus();
    }
  };

  return (
    <main id="main" class="sign-in" tabIndex={-1}>
      <p class="brand">paygate</p>
      <PageHeading>Sign in to the dashboard</PageHeading>
      {linkSpent && (
        <p class="notice" role="status">
          {SPENT_LINK_NOTICE}
        </p>
      )}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="apiKey"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          maxLength={256}
          aria-describedby={failure ? 'api-key-hint sign-in-failure' : 'api-key-hint'}
          aria-invalid={failure ? true : undefined}
        />
        <p id="api-key-hint" class="hint">
          The dashboard can see and do what this key's scopes allow, and no more.
        </p>
        {failure && (
          <p id="sign-in-failure" class="error" role="alert">
            {failure}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint">Or open a one-time sign-in link from your operator.</p>
    </main>
  );
}
