import { describe, expect, it } from 'vitest';
import { attributes, escapeHtml, html, lines, page, trustedHtml } from '../../src/checkout/html.ts';

describe('html template tag', () => {
  it('escapes every interpolated text, in text and in attributes', () => {
    const name = `<img src=x onerror="alert('x')"> & Co`;
    expect(html`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co</p>',
    );
    expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('inserts markup made by the tag as it is, once escaped, however deeply nested', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    const list = html`<ul>${['a<b', 'c&d'].map(item)}</ul>`;
    expect(html`<div>${list}</div>`.markup).toBe('<div><ul><li>a&lt;b</li><li>c&amp;d</li></ul></div>');
  });

  it('leaves out null, undefined and false, and writes numbers and empty strings as they are', () => {
    const hidden = false;
    expect(html`<p${hidden && html` hidden`}>${null}${undefined}${0}${''}${12.5}</p>`.markup).toBe('<p>012.5</p>');
  });

  it('takes trusted markup as it is and joins parts one per line', () => {
    expect(html`<figure>${trustedHtml('<svg><rect/></svg>')}</figure>`.markup).toBe(
      '<figure><svg><rect/></svg></figure>',
    );
    expect(lines([html`<p>a</p>`, html`<p>${'<b>'}</p>`]).markup).toBe('<p>a</p>\n<p>&lt;b&gt;</p>');
  });

  it('writes attributes with their values escaped', () => {
    expect(attributes({ 'data-url': 'https://x/?a=1&b="2"', 'data-id': 'p1' }).markup).toBe(
      ' data-url="https://x/?a=1&amp;b=&quot;2&quot;" data-id="p1"',
    );
  });

  it('lays a page out with its title escaped, its head additions and its body attributes', () => {
    const markup = page({
      title: 'Pay <Shop>',
      stylesheet: '/assets/a.css?v="1"',
      head: html`<script src="/a.js" defer></script>`,
      bodyAttributes: { 'data-signal': '{"ok":true}' },
      body: html`<main>${'<hi>'}</main>`,
    });
    expect(markup.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(markup).toContain('<title>Pay &lt;Shop&gt;</title>');
    expect(markup).toContain('<link rel="stylesheet" href="/assets/a.css?v=&quot;1&quot;">');
    expect(markup).toContain('<script src="/a.js" defer></script>\n</head>');
    expect(markup).toContain('<body data-signal="{&quot;ok&quot;:true}">\n<main>&lt;hi&gt;</main>\n</body>');
    expect(markup).toContain('<meta name="robots" content="noindex">');
  });
});
