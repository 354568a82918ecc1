import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** Screenshots for a person to look at, in a git-ignored folder. */
export const DASHBOARD_ARTIFACTS_DIR = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));

export const DASHBOARD_VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 900 },
} as const;

/**
 * Saves a full-page screenshot of the current page at the phone and desktop sizes, and checks that nothing is wider
 * than either screen (no sideways scrolling of the page on a phone; wide tables become cards there).
 */
export async function saveDashboardScreenshots(page: Page, name: string): Promise<void> {
  await fs.mkdir(DASHBOARD_ARTIFACTS_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(DASHBOARD_VIEWPORTS)) {
    await page.setViewportSize(size);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    if (scrollWidth > size.width) {
      throw new Error(`${name} is ${scrollWidth} px wide on a ${size.width} px ${label} screen`);
    }
    await page.screenshot({ path: path.join(DASHBOARD_ARTIFACTS_DIR, `${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

const axeSource = fs.readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy (scripts from the service only) does not apply to.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node: any) => node.target.join(' ')),
    }));
  });
  return (violations as AxeViolation[]).filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
}
