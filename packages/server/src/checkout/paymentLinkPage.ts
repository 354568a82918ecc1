import type { CheckoutLocale } from '@paygate/web/checkout/i18n/locales.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { merchantMark, type PageAssets, renderMessagePage } from './checkoutPage.ts';
import { attributes, html, page, type SafeHtml } from './html.ts';
import { translatedHtml } from './translatedHtml.ts';

/** Why a payment link's page shows no form: the link's state, or its merchant's. */
export type LinkPageState = 'inactive' | 'expired' | 'spent' | 'all_taken' | 'merchant_not_active';

/** A problem with what the buyer entered, said beside the form. */
export type LinkFormProblem =
  | { key: 'link.problem.amountMissing' | 'link.problem.pageUsed' }
  | { key: 'link.problem.amountNotANumber'; example: string }
  | { key: 'link.problem.amountBelow'; minimum: string }
  | { key: 'link.problem.amountAbove'; maximum: string }
  | { key: 'link.problem.quantity'; maximum: number };

export interface LinkPageModel {
  linkId: string;
  locale: CheckoutLocale;
  assets: PageAssets;
  merchantName: string;
  logoUrl: string | null;
  description: string;
  imageUrl: string | null;
  /** The form, or why there is none. */
  content:
    | {
        form: true;
        /** Names this rendering: the same page submitted twice makes one payment. */
        visit: string;
        /** The fixed price, formatted; or the bounds of the buyer's amount. */
        price: { fixed: string; maxQuantity: number | null } | { currency: string; minimum: string; maximum: string };
        entered: { amount?: string; quantity?: number };
        problem?: LinkFormProblem;
      }
    | { form: false; state: LinkPageState };
}

function problemText(t: ReturnType<typeof translator>, problem: LinkFormProblem): string {
  switch (problem.key) {
    case 'link.problem.amountNotANumber':
      return t(problem.key, { example: problem.example });
    case 'link.problem.amountBelow':
      return t(problem.key, { minimum: problem.minimum });
    case 'link.problem.amountAbove':
      return t(problem.key, { maximum: problem.maximum });
    case 'link.problem.quantity':
      return t(problem.key, { maximum: String(problem.maximum) });
    default:
      return t(problem.key);
  }
}

function linkForm(model: LinkPageModel, content: Extract<LinkPageModel['content'], { form: true }>): SafeHtml {
  const t = translator(model.locale);
  const { price, entered, problem } = content;
  const problemLine = problem
    ? html`<p class="link-problem" id="link-problem" role="alert">${problemText(t, problem)}</p>`
    : undefined;
  const amountAttributes: Record<string, string> = problem
    ? { value: entered.amount ?? '', 'aria-invalid': 'true', 'aria-describedby': 'link-problem amount-hint' }
    : { value: entered.amount ?? '', 'aria-describedby': 'amount-hint' };
  const fields =
    'fixed' in price
      ? html`<div class="summary"><p class="amount"><span class="label">${t('link.price')}</span> <strong class="figure">${price.fixed}</strong></p></div>
${
  price.maxQuantity
    ? html`<div class="link-field"><label for="quantity">${t('link.quantity')}</label>
<select id="quantity" name="quantity"${attributes(problem ? { 'aria-invalid': 'true', 'aria-describedby': 'link-problem' } : {})}>${Array.from(
        { length: price.maxQuantity },
        (_, index) =>
          html`<option value="${String(index + 1)}"${index + 1 === (entered.quantity ?? 1) ? html` selected` : ''}>${String(index + 1)}</option>`,
      )}</select></div>`
    : undefined
}`
      : html`<div class="link-field"><label for="amount">${t('link.yourAmount', { currency: price.currency })}</label>
<input id="amount" name="amount" inputmode="decimal" autocomplete="off" required${attributes(amountAttributes)}>
<p class="link-hint" id="amount-hint">${t('link.amountBetween', { minimum: price.minimum, maximum: price.maximum })}</p></div>`;
  return html`<form class="link-form" method="post">
<input type="hidden" name="visit" value="${content.visit}">
${fields}
${problemLine}
<button class="button primary" type="submit">${t('link.continue')}</button>
</form>`;
}

function stateView(model: LinkPageModel, state: LinkPageState): SafeHtml {
  const t = translator(model.locale);
  const merchant = model.merchantName;
  if (state === 'merchant_not_active') {
    return html`<section class="view"><h2>${t('status.notTaking.heading')}</h2>
<p>${t('status.notTaking.text', { merchant })}</p></section>`;
  }
  if (state === 'all_taken') {
    return html`<section class="view"><h2>${t('link.allTaken.heading')}</h2>
<p>${t('link.allTaken.text')}</p>
<p><a class="button" href="">${t('link.tryAgain')}</a></p></section>`;
  }
  const keys = {
    inactive: ['link.inactive.heading', 'link.inactive.text'],
    expired: ['link.expired.heading', 'link.expired.text'],
    spent: ['link.spent.heading', 'link.spent.text'],
  } as const;
  const [heading, text] = keys[state];
  return html`<section class="view"><h2>${t(heading)}</h2>
<p>${t(text, { merchant })}</p></section>`;
}

/** A payment link's page, complete without JavaScript: what is sold, the price or the buyer's amount, one button. */
export function renderPaymentLinkPage(model: LinkPageModel): string {
  const t = translator(model.locale);
  const body = html`<main class="checkout link-page" data-link-state="${model.content.form ? 'open' : model.content.state}">
<header class="merchant">
${merchantMark(model)}
<div>
<p class="eyebrow">${t('page.eyebrow')}</p>
<h1>${model.merchantName}</h1>
</div>
</header>
${model.imageUrl ? html`<img class="link-image" src="${model.imageUrl}" alt="">` : undefined}
<p class="link-description">${model.description}</p>
${model.content.form ? linkForm(model, model.content) : stateView(model, model.content.state)}
<footer class="reference">${translatedHtml(t, 'link.reference', { link: html`<code>${model.linkId}</code>` })}</footer>
</main>`;
  return page({
    lang: model.locale,
    colorScheme: 'light dark',
    title: t('link.title', { merchant: model.merchantName }),
    stylesheet: model.assets.styleUrl,
    icon: model.assets.iconUrl,
    body,
  });
}

/** The page of a link that does not exist. */
export function renderLinkNotFoundPage(assets: PageAssets, locale: CheckoutLocale): string {
  const t = translator(locale);
  return renderMessagePage(assets, locale, t('link.notFound.title'), t('link.notFound.text'));
}
