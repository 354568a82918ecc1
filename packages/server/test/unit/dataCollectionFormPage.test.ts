import { describe, expect, it } from 'vitest';
import {
  renderCollectDone,
  renderCollectForm,
  renderCollectRefused,
} from '../../src/checkout/collect/collectFormPage.ts';
import { buyerDataSchema } from '../../src/gateway/dataCollection/buyerDataSchema.ts';

const schema = buyerDataSchema(new Date('2026-11-22T10:00:00Z'));

function signalOf(html: string): unknown {
  const match = /<body data-host-signal="([^"]*)">/.exec(html);
  return match ? JSON.parse((match[1] as string).replaceAll('&quot;', '"')) : undefined;
}

describe('data collection form page', () => {
  it('labels every field of the schema, groups the alternatives, and marks the date limits', () => {
    const html = renderCollectForm({
      locale: 'en',
      merchantName: 'Corner Shop',
      amountText: '$10.00',
      schema,
      values: {},
      problems: new Map(),
    });
    for (const name of Object.keys(schema.properties)) {
      expect(html).toContain(`<label for="field-${name}">`);
      expect(html).toContain(`id="field-${name}" name="${name}"`);
    }
    expect(html).toContain('<legend>Place of birth or Place of residence (at least one)</legend>');
    expect(html).toContain('type="date" id="field-dateOfBirth" name="dateOfBirth" min="1900-01-01" max="2026-11-22"');
    expect(html).toContain('autocomplete="name"');
    expect(html).not.toContain('role="alert"');
    expect(signalOf(html)).toBeUndefined();
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="assets/collect-form.js" defer>']);
  });

  it('ties each error to its field and lists them in a summary that links to the fields', () => {
    const problems = new Map([
      ['fullName', 'Enter your full name'],
      ['placeOfBirth', 'Enter your place of birth or your place of residence'],
    ]);
    const html = renderCollectForm({
      locale: 'en',
      merchantName: 'Corner Shop',
      amountText: '$10.00',
      schema,
      values: { dateOfBirth: '1990-12-10' },
      problems,
    });
    expect(html).toContain('<title>Error: Your details for Corner Shop</title>');
    expect(html).toContain('role="alert"');
    expect(html).toContain('<a href="#field-fullName">Full name: Enter your full name</a>');
    expect(html).toMatch(
      /id="field-fullName"[^>]* aria-invalid="true" aria-describedby="field-fullName-hint field-fullName-error"/,
    );
    expect(html).toContain(
      '<p class="error" id="field-fullName-error"><span class="visually-hidden">Error: </span>Enter your full name</p>',
    );
    expect(html).toContain('value="1990-12-10"');
    expect(html).not.toMatch(/id="field-dateOfBirth"[^>]*aria-invalid/);
  });

  it('escapes what buyers and merchants wrote', () => {
    const html = renderCollectForm({
      locale: 'en',
      merchantName: '<script>alert(1)</script>',
      amountText: '$10.00',
      schema,
      values: { fullName: '"><img src=x onerror=alert(1)>' },
      problems: new Map(),
    });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(renderCollectDone('A & B', 'en')).toContain('A &amp; B has your details');
  });

  it('carries the message for the wallet on the done and refused pages', () => {
    expect(signalOf(renderCollectDone('Corner Shop', 'en'))).toEqual({ type: 'IC_COMPLETE', success: true });
    expect(signalOf(renderCollectRefused('link_expired', 'en'))).toEqual({
      type: 'IC_ERROR',
      success: false,
      reason: 'link_expired',
    });
  });
});
