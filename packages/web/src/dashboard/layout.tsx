import type { ComponentChildren } from 'preact';
import { ConsoleLayout } from '../ui/consoleLayout.tsx';
import type { Session } from './apiTypes.ts';
import { DEVELOPERS_PATH, MERCHANTS_PATH, OVERVIEW_PATH, PAYMENTS_PATH, SETTLEMENTS_PATH } from './paths.ts';

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
