const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value made inert in HTML. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}

/** Markup: inserted into an `html` template as it is. Only `html` and `trustedHtml` make one. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** What a template may hold: text is escaped, markup is not, lists are joined, `null`/`undefined`/`false` are left out. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * Template tag for pages: every value is escaped unless it is markup made by `html` itself, so a template cannot
 * forget to escape what a merchant, a partner or a buyer wrote.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, index) => {
    markup += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(markup);
}

/** An amount as it sits in a sentence or a line: its figure and symbol kept on one line (`.figure`). */
export function figure(text: string): SafeHtml {
  return html`<span class="figure">${text}</span>`;
}

/** The parts one per line. */
export function lines(parts: readonly SafeHtml[]): SafeHtml {
  return new SafeHtml(parts.map((part) => part.markup).join('\n'));
}

/** Markup built outside a template and safe by construction (a QR code's SVG made by the service). */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** ` name="value"` for each attribute, values escaped; `data-` attributes for the page's script, for instance. */
export function attributes(values: Record<string, string>): SafeHtml {
  return html`${Object.entries(values).map(([name, value]) => html` ${trustedHtml(name)}="${value}"`)}`;
}

/**
 * The one page layout: not indexed, scaled to the device; `head` adds to it. A page is light only unless its
 * stylesheet has a dark variant too (`colorScheme: 'light dark'`): form controls and the canvas must not turn dark
 * under styles that stay light.
 */
export function page(options: {
  /** The language of the page's words (`<html lang>`); English unless said. */
  lang?: string;
  /** The colour schemes the page's stylesheet supports; light only unless said. */
  colorScheme?: 'light' | 'light dark';
  title: string;
  stylesheet: string;
  /** The service's icon (an SVG), so browsers ask for no `/favicon.ico`. */
  icon?: string;
  head?: SafeHtml;
  bodyAttributes?: Record<string, string>;
  body: SafeHtml;
}): string {
  return html`<!doctype html>
<html lang="${options.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${options.colorScheme ?? 'light'}">
<meta name="robots" content="noindex">
<title>${options.title}</title>
<link rel="stylesheet" href="${options.stylesheet}">
${options.icon ? html`<link rel="icon" type="image/svg+xml" href="${options.icon}">` : undefined}
${options.head}
</head>
<body${attributes(options.bodyAttributes ?? {})}>
${options.body}
</body>
</html>
`.markup;
}
