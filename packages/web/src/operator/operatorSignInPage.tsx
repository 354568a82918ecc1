import { PageHeading, usePageTitle } from '../ui/common.tsx';
import { CONSOLE_NAME } from './paths.ts';

export const SPENT_OPERATOR_LINK_NOTICE =
  'This sign-in link has been used or has expired; run paygate operator-link for a new one.';

/**
 * The operator signs in only by a one-time link, printed on the server by `paygate operator-link`: whoever can run
 * the service's commands is its operator. The page says so, and that a link opened twice is spent.
 */
export function OperatorSignInPage(props: { linkSpent: boolean }) {
  usePageTitle('Sign in', CONSOLE_NAME);
  return (
    <main id="main" class="sign-in" tabIndex={-1}>
      <p class="brand">paygate</p>
      <PageHeading>Sign in to the operator console</PageHeading>
      {props.linkSpent && (
        <p class="notice" role="status">
          {SPENT_OPERATOR_LINK_NOTICE}
        </p>
      )}
      <p>The operator console is opened with a one-time sign-in link. On the server that runs paygate, run:</p>
      <pre class="command">
        <code>paygate operator-link</code>
      </pre>
      <p>
        and open the link it prints in this browser. A link works once, and only until it expires; the session it starts
        ends when you sign out or when it expires.
      </p>
    </main>
  );
}
