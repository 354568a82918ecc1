import type { PageAssets } from './checkoutPage.ts';
import { html, page, type SafeHtml } from './html.ts';

export interface LandingPageModel {
  /** The service's version (`paygate --version`). */
  version: string;
  /** The API version a request without `Pay-Version` gets. */
  apiVersion: string;
  /** `BASE_URL`: the API, its reference and the consoles live there. */
  baseUrl: string;
  /** `CHECKOUT_URL`: payment links are `<checkoutUrl>/<paymentId>`. */
  checkoutUrl: string;
  assets: PageAssets;
}

function place(href: string, name: string, what: SafeHtml | string): SafeHtml {
  return html`<li><a href="${href}">${name}</a><span class="place-what">${what}</span></li>`;
}

function command(text: string, what: string): SafeHtml {
  return html`<li><code>${text}</code><span class="place-what">${what}</span></li>`;
}

/**
 * The page at `/` when it is no payment's: what this service is, where its API reference, consoles and health check
 * are, and the commands that make API keys. Nothing from the database, and no script.
 */
export function renderLandingPage(model: LandingPageModel): string {
  const { baseUrl } = model;
  return page({
    title: `paygate ${model.version}`,
    // The checkout's stylesheet, which has a dark variant.
    colorScheme: 'light dark',
    stylesheet: model.assets.styleUrl,
    icon: model.assets.iconUrl,
    body: html`<main class="checkout landing">
<h1>paygate</h1>
<p class="lead">This is a paygate payment service, version ${model.version}.</p>
<p>It takes payments in stablecoins and crypto, on EVM chains and Solana, for the merchants of its partners, and
settles them to the merchants' own wallets. Partners call its API from their backends; a buyer opens a payment link,
<code>${model.checkoutUrl}/pay_…</code>, to pay on its checkout page.</p>
<h2>Where things are</h2>
<ul class="places">
${place(`${baseUrl}/docs`, 'API reference', html`Every route with its schemas and errors, API version ${model.apiVersion} by default. The OpenAPI 3.1 document: <a href="${baseUrl}/openapi.json">openapi.json</a>.`)}
${place(`${baseUrl}/dashboard`, 'Partner dashboard', "A partner's payments, merchants, settlements, API keys and webhooks.")}
${place(`${baseUrl}/operator`, 'Operator console', 'Partners, merchants and the health of the chains, for whoever runs this service.')}
${place(`${baseUrl}/healthz`, 'Health check', 'Answers while this process is up.')}
</ul>
<h2>Get an API key</h2>
<p>Keys are made on the machine that runs the service, in its folder, with its command line. On a new local setup,
<code>npm start</code> made a demo partner and printed its key once, on its console.</p>
<ul class="places">
${command('npx paygate partner list', 'The partners and their ids.')}
${command('npx paygate key create --partner <partnerId>', 'A new API key of that partner, printed once.')}
${command('npx paygate partner create --name <name>', 'A new partner, with its first API key.')}
${command('npx paygate dashboard-link --partner <partnerId>', 'A one-time link that signs in to the partner dashboard (an API key signs in too).')}
${command('npx paygate operator-link', 'A one-time link that signs in to the operator console.')}
</ul>
</main>`,
  });
}
