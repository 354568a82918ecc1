import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice } from './common.tsx';

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
