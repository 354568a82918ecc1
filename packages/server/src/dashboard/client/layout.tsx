import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Session } from './apiTypes.ts';
import { ErrorNotice } from './common.tsx';
import { DEVELOPERS_PATH, MERCHANTS_PATH, OVERVIEW_PATH, PAYMENTS_PATH, SETTLEMENTS_PATH } from './paths.ts';

export interface ConsoleSection {
  id: string;
  label: string;
  path: string;
}

/** The frame of every signed-in page of a console: who it acts for, its sections, and signing out. */
export function ConsoleLayout(props: {
  /** The console's name beside the brand, and where the brand links. */
  name: string;
  home: string;
  sections: readonly ConsoleSection[];
  /** The section the page belongs to. */
  section: string | undefined;
  /** Who the console acts for. */
  identity: ComponentChildren;
  onSignOut: () => Promise<void>;
  children: ComponentChildren;
}) {
  const [signOutFailure, setSignOutFailure] = useState<Error | undefined>();
  const signOut = () => props.onSignOut().catch((error: unknown) => setSignOutFailure(error as Error));
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={props.home}>
          paygate <span class="brand-part">{props.name}</span>
        </a>
        <nav aria-label="Sections">
          <ul>
            {props.sections.map((section) => (
              <li key={section.path}>
                <a href={section.path} aria-current={section.id === props.section ? 'page' : undefined}>
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="partner">{props.identity}</p>
        <button type="button" class="quiet sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      {signOutFailure && <ErrorNotice error={signOutFailure} prefix="Signing out failed:" />}
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}

/** The dashboard's sections. */
const SECTIONS = [
  { id: 'overview', label: 'Overview', path: OVERVIEW_PATH },
  { id: 'payments', label: 'Payments', path: PAYMENTS_PATH },
  { id: 'settlements', label: 'Settlements', path: SETTLEMENTS_PATH },
  { id: 'merchants', label: 'Merchants', path: MERCHANTS_PATH },
  { id: 'developers', label: 'Developers', path: DEVELOPERS_PATH },
] as const;

export type Section = (typeof SECTIONS)[number]['id'];

/** The partner dashboard's frame: the partner it acts for. */
export function Layout(props: {
  session: Session;
  section: Section | undefined;
  onSignOut: () => Promise<void>;
  children: ComponentChildren;
}) {
  return (
    <ConsoleLayout
      name="dashboard"
      home="/dashboard"
      sections={SECTIONS}
      section={props.section}
      identity={
        <>
          <span class="label">Partner</span> <span title={props.session.partnerId}>{props.session.partnerName}</span>
        </>
      }
      onSignOut={props.onSignOut}
    >
      {props.children}
    </ConsoleLayout>
  );
}
