/** What the service tells its dashboard in the page itself, beside the API (see showDashboard.ts). */
export interface DashboardSettings {
  /** Block explorers by CAIP-2 id; transaction pages at `<url>/tx/<hash>`. */
  explorerUrls: Record<string, string>;
  /** The API versions whose payment list filters by `cancelled`. */
  cancelledStatusVersions: string[];
  /** The event types a webhook endpoint can receive. */
  webhookEventTypes: string[];
  /** Every scope an API key can have. */
  scopes: string[];
}

export function readSettings(body: HTMLElement): DashboardSettings {
  return {
    explorerUrls: JSON.parse(body.dataset.explorerUrls ?? '{}') as Record<string, string>,
    cancelledStatusVersions: JSON.parse(body.dataset.cancelledStatusVersions ?? '[]') as string[],
    webhookEventTypes: JSON.parse(body.dataset.webhookEventTypes ?? '[]') as string[],
    scopes: JSON.parse(body.dataset.scopes ?? '[]') as string[],
  };
}
