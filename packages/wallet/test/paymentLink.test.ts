import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAYMENT_ID_PATTERN, isPaymentLink, parsePaymentLink } from '../src/paymentLink.ts';

const ID = 'pay_01JABCDEFGHJKMNPQRSTVWXYZ0';
const OTHER_ID = 'pay_01JZZZZZZZZZZZZZZZZZZZZZZZ';
const HOST = 'pay.example.com';
const CHECKOUT = { checkoutUrl: `https://${HOST}` };
const PREFIXED = { checkoutUrl: 'https://example.com/checkout' };
const LOCAL = { checkoutUrl: 'http://localhost:8080' };
const LOOPBACK_IP = { checkoutUrl: 'http://127.0.0.1:8080' };

const enc = encodeURIComponent;
const wc = (payLink: string) => `wc:7f6e5d4c3b2a@2?relay-protocol=irn&symKey=0a1b2c&pay=${enc(payLink)}`;

describe('parsePaymentLink: accepted forms', () => {
  const accepted: Array<[string, string, { checkoutUrl: string }]> = [
    ['path', `https://${HOST}/${ID}`, CHECKOUT],
    ['path with trailing slash', `https://${HOST}/${ID}/`, CHECKOUT],
    ['path with unrelated query and fragment', `https://${HOST}/${ID}?utm_source=qr#top`, CHECKOUT],
    ['?pid= with slash', `https://${HOST}/?pid=${ID}`, CHECKOUT],
    ['?pid= without slash', `https://${HOST}?pid=${ID}`, CHECKOUT],
    ['?pid= among other params', `https://${HOST}/?lang=en&pid=${ID}`, CHECKOUT],
    ['subdomain', `https://eu.${HOST}/${ID}`, CHECKOUT],
    ['nested subdomain', `https://a-1.eu.${HOST}/?pid=${ID}`, CHECKOUT],
    ['upper-case scheme and host', `HTTPS://PAY.Example.COM/${ID}`, CHECKOUT],
    ['explicit default port', `https://${HOST}:443/${ID}`, CHECKOUT],
    ['surrounding whitespace from a scanner', `  https://${HOST}/${ID}\n`, CHECKOUT],
    ['bare id', ID, CHECKOUT],
    ['wc: with encoded path link', wc(`https://${HOST}/${ID}`), CHECKOUT],
    ['wc: with encoded ?pid= link', wc(`https://${HOST}/?pid=${ID}`), CHECKOUT],
    ['upper-case WC: scheme', wc(`https://${HOST}/${ID}`).replace('wc:', 'WC:'), CHECKOUT],
    ['path prefix, path form', `https://example.com/checkout/${ID}`, PREFIXED],
    ['path prefix, ?pid= with slash', `https://example.com/checkout/?pid=${ID}`, PREFIXED],
    ['path prefix, ?pid= without slash', `https://example.com/checkout?pid=${ID}`, PREFIXED],
    [
      'path prefix with trailing slash',
      `https://example.com/checkout/${ID}`,
      { checkoutUrl: 'https://example.com/checkout/' },
    ],
    ['path prefix via wc:', wc(`https://example.com/checkout/${ID}`), PREFIXED],
    ['http localhost with port', `http://localhost:8080/${ID}`, LOCAL],
    ['IP checkout', `http://127.0.0.1:8080/?pid=${ID}`, LOOPBACK_IP],
    ['pid value percent-encoded', `https://${HOST}/?pid=${ID.replace('_', '%5F')}`, CHECKOUT],
  ];

  it.each(accepted)('%s: %s', (_name, input, options) => {
    expect(parsePaymentLink(input, options)).toEqual({ paymentId: ID });
    expect(isPaymentLink(input, options)).toBe(true);
  });

  it('keeps dashes and underscores of the id body', () => {
    const id = 'pay_01JABCDEFGHJKMNPQ-_TVWXYZ0';
    expect(parsePaymentLink(id, CHECKOUT)).toEqual({ paymentId: id });
    expect(parsePaymentLink(`https://${HOST}/${id}`, CHECKOUT)).toEqual({ paymentId: id });
  });
});

describe('parsePaymentLink: refused links', () => {
  const refused: Array<[string, string, { checkoutUrl: string }]> = [
    ['empty', '', CHECKOUT],
    ['look-alike prefix evil-<host>', `https://evil-${HOST}/${ID}`, CHECKOUT],
    ['prefix without a dot', `https://x${HOST}/${ID}`, CHECKOUT],
    ['<host>.attacker.com', `https://${HOST}.attacker.com/${ID}`, CHECKOUT],
    ['<host>@attacker.com', `https://${HOST}@attacker.com/${ID}`, CHECKOUT],
    ['userinfo on the real host', `https://evil.com@${HOST}/${ID}`, CHECKOUT],
    ['user and password on the real host', `https://user:secret@${HOST}/${ID}`, CHECKOUT],
    ['empty userinfo', `https://@${HOST}/${ID}`, CHECKOUT],
    ['backslash before @', `https://${HOST}\\@evil.com/${ID}`, CHECKOUT],
    ['backslashes as separators', `https:\\\\${HOST}\\${ID}`, CHECKOUT],
    ['backslash in path', `https://${HOST}\\${ID}`, CHECKOUT],
    ['percent-encoded dot in host', `https://pay%2Eexample.com/${ID}`, CHECKOUT],
    ['percent-encoded letter in host', `https://%70ay.example.com/${ID}`, CHECKOUT],
    ['NUL trick', `https://${HOST}%00.evil.com/${ID}`, CHECKOUT],
    ['Cyrillic homograph', `https://p\u0430y.example.com/${ID}`, CHECKOUT],
    ['punycode of the homograph', `https://${new URL(`https://p\u0430y.example.com`).hostname}/${ID}`, CHECKOUT],
    ['full-width letter', `https://\uff50ay.example.com/${ID}`, CHECKOUT],
    ['full-width dot', `https://pay\uff0eexample.com/${ID}`, CHECKOUT],
    ['tab inside host (parsers strip it)', `https://pay.exa\tmple.com/${ID}`, CHECKOUT],
    ['space inside', `https://pay.example.com/ ${ID}`, CHECKOUT],
    ['tab inside the id (parsers strip it)', `https://${HOST}/${ID.slice(0, 10)}\t${ID.slice(10)}`, CHECKOUT],
    ['trailing backslash (parsers read it as a slash)', `https://${HOST}/${ID}\\`, CHECKOUT],
    ['trailing dot', `https://${HOST}./${ID}`, CHECKOUT],
    ['trailing dot on subdomain', `https://eu.${HOST}./${ID}`, CHECKOUT],
    ['empty label in subdomain', `https://a..${HOST}/${ID}`, CHECKOUT],
    ['leading dot', `https://.${HOST}/${ID}`, CHECKOUT],
    ['parent domain', `https://example.com/${ID}`, CHECKOUT],
    ['sibling subdomain', `https://evil.example.com/${ID}`, CHECKOUT],
    ['different port', `https://${HOST}:8443/${ID}`, CHECKOUT],
    ['port with leading zero', `https://${HOST}:0443/${ID}`, CHECKOUT],
    ['empty port', `https://${HOST}:/${ID}`, CHECKOUT],
    ['missing port', `http://localhost/${ID}`, LOCAL],
    ['other port', `http://localhost:8081/${ID}`, LOCAL],
    ['http link for https checkout', `http://${HOST}/${ID}`, CHECKOUT],
    ['https link for http checkout', `https://localhost:8080/${ID}`, LOCAL],
    ['ftp scheme', `ftp://${HOST}/${ID}`, CHECKOUT],
    ['javascript scheme', `javascript://${HOST}/${ID}`, CHECKOUT],
    ['scheme-relative', `//${HOST}/${ID}`, CHECKOUT],
    ['single slash after scheme', `https:/${HOST}/${ID}`, CHECKOUT],
    ['no slash after scheme', `https:${HOST}/${ID}`, CHECKOUT],
    ['three slashes', `https:///${HOST}/${ID}`, CHECKOUT],
    ['decimal IPv4', `http://2130706433:8080/${ID}`, LOOPBACK_IP],
    ['hex IPv4', `http://0x7f.1:8080/${ID}`, LOOPBACK_IP],
    ['short IPv4', `http://127.1:8080/${ID}`, LOOPBACK_IP],
    ['subdomain of an IP', `http://evil.127.0.0.1:8080/${ID}`, LOOPBACK_IP],
    ['outside the path prefix', `https://example.com/${ID}`, PREFIXED],
    ['look-alike path prefix', `https://example.com/checkoutx/${ID}`, PREFIXED],
    ['other path', `https://example.com/other/${ID}`, PREFIXED],
    ['?pid= outside the prefix', `https://example.com/?pid=${ID}`, PREFIXED],
    ['extra path segment', `https://${HOST}/${ID}/extra`, CHECKOUT],
    ['id not at the root', `https://${HOST}/x/${ID}`, CHECKOUT],
    ['short id', `https://${HOST}/pay_01JABC`, CHECKOUT],
    ['other prefix', `https://${HOST}/mrch_01JABCDEFGHJKMNPQRSTVWXYZ0`, CHECKOUT],
    ['id with a dot', `https://${HOST}/pay_01JABCDEFGHJKMNPQRSTVWXYZ0.x`, CHECKOUT],
    ['percent-encoded id in path', `https://${HOST}/${ID.replace('_', '%5F')}`, CHECKOUT],
    ['path id and pid together', `https://${HOST}/${ID}?pid=${OTHER_ID}`, CHECKOUT],
    ['two pid values', `https://${HOST}/?pid=${ID}&pid=${OTHER_ID}`, CHECKOUT],
    ['empty pid', `https://${HOST}/?pid=`, CHECKOUT],
    ['bare short id', 'pay_123', CHECKOUT],
    ['bare id with a slash', `${ID}/x`, CHECKOUT],
    ['wc: pairing without pay', 'wc:7f6e5d4c3b2a@2?relay-protocol=irn&symKey=0a1b2c', CHECKOUT],
    ['wc: without query', 'wc:7f6e5d4c3b2a@2', CHECKOUT],
    ['wc: pay to another host', wc(`https://${HOST}.attacker.com/${ID}`), CHECKOUT],
    ['wc: pay with userinfo', wc(`https://evil.com@${HOST}/${ID}`), CHECKOUT],
    ['wc: pay with backslash', wc(`https://${HOST}\\@evil.com/${ID}`), CHECKOUT],
    ['wc: two pay values', `${wc(`https://${HOST}/${ID}`)}&pay=${enc(`https://${HOST}/${OTHER_ID}`)}`, CHECKOUT],
    ['wc: double-encoded pay', wc(enc(`https://${HOST}/${ID}`)), CHECKOUT],
    ['wc: bare id in pay', wc(ID), CHECKOUT],
    ['wc: http link for https checkout', wc(`http://${HOST}/${ID}`), CHECKOUT],
    [
      'other host carrying the checkout link in its query',
      `https://evil.com/?next=${enc(`https://${HOST}/${ID}`)}`,
      CHECKOUT,
    ],
  ];

  it.each(refused)('%s: %s', (_name, input, options) => {
    expect(parsePaymentLink(input, options)).toBeNull();
    expect(isPaymentLink(input, options)).toBe(false);
  });

  it('rejects a checkout URL that is not http(s) or carries credentials', () => {
    expect(() => parsePaymentLink(ID, { checkoutUrl: 'ftp://pay.example.com' })).toThrow(TypeError);
    expect(() => parsePaymentLink(ID, { checkoutUrl: 'https://u:p@pay.example.com' })).toThrow(TypeError);
    expect(() => parsePaymentLink(ID, { checkoutUrl: 'not a url' })).toThrow(TypeError);
  });
});

describe('PAYMENT_ID_PATTERN', () => {
  it('matches pay_ plus at least 26 URL-safe characters', () => {
    expect(PAYMENT_ID_PATTERN.test(ID)).toBe(true);
    expect(PAYMENT_ID_PATTERN.test(`pay_${'A'.repeat(25)}`)).toBe(false);
    expect(PAYMENT_ID_PATTERN.test(`pay_${'A'.repeat(26)}`)).toBe(true);
    expect(PAYMENT_ID_PATTERN.test(`pay_${'A'.repeat(25)}=`)).toBe(false);
  });
});

// --- properties -------------------------------------------------------------------------------------

const validId = fc.stringMatching(/^pay_[A-Za-z0-9_-]{26,40}$/);
// A DNS label; `xn--` starts an internationalised label, which must then be valid Punycode (URL parsing refuses
// `xn--a`), so the generator leaves those out.
const label = fc
  .stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/)
  .filter((candidate) => !candidate.startsWith('xn--'));
const subdomainPrefix = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => `${labels.join('.')}.`);
const realHostOrSubdomain = fc.oneof(
  fc.constant(HOST),
  subdomainPrefix.map((prefix) => `${prefix}${HOST}`),
);

// Characters attackers use to build look-alikes: separators, URL syntax, and Unicode confusables
// (Cyrillic a/e/o, full-width p and dot, dotless i, zero-width space).
const trickChar = fc.constantFrom(
  ...'abcxyz019-._@:%\\'.split(''),
  '\u0430',
  '\u0435',
  '\u043e',
  '\uff50',
  '\uff0e',
  '\u0131',
  '\u200b',
);
const trickString = fc.array(trickChar, { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));

/** The independent oracle: exactly the checkout host or one of its subdomains (ASCII, case-insensitive). */
function isRealHostOrSubdomain(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === HOST || (lower.endsWith(`.${HOST}`) && !lower.startsWith('.') && !lower.includes('..'));
}

const lookAlikeHost = fc
  .oneof(
    trickString.map((s) => `${s}${HOST}`),
    trickString.map((s) => `${HOST}${s}`),
    fc.tuple(fc.nat({ max: HOST.length }), trickString).map(([at, s]) => `${HOST.slice(0, at)}${s}${HOST.slice(at)}`),
    fc
      .tuple(fc.nat({ max: HOST.length - 1 }), trickChar)
      .map(([at, c]) => `${HOST.slice(0, at)}${c}${HOST.slice(at + 1)}`),
  )
  // `:443` after the host is the default port, i.e. the real host; ports are covered separately.
  .filter((host) => !isRealHostOrSubdomain(host) && !isRealHostOrSubdomain(host.replace(/:443$/, '')));

const anyScheme = fc.constantFrom('https', 'HTTPS', 'http', 'ftp', 'wss', 'javascript');
const anyUserinfo = fc.constantFrom('', `${HOST}@`, 'evil@', 'u:p@', '@');
const anyPort = fc.constantFrom('', ':443', ':8443', ':80', ':0');

function linkForms(base: string, id: string): string[] {
  return [`${base}/${id}`, `${base}/?pid=${id}`, wc(`${base}/${id}`), wc(`${base}/?pid=${id}`)];
}

describe('parsePaymentLink: properties', () => {
  it('never accepts a host that is not the checkout host or a subdomain of it', () => {
    fc.assert(
      fc.property(anyScheme, anyUserinfo, lookAlikeHost, anyPort, validId, (scheme, userinfo, host, port, id) => {
        for (const link of linkForms(`${scheme}://${userinfo}${host}${port}`, id)) {
          expect(parsePaymentLink(link, CHECKOUT), link).toBeNull();
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts the real host with a wrong scheme, userinfo or port', () => {
    const badParts = fc
      .tuple(anyScheme, anyUserinfo, anyPort)
      .filter(
        ([scheme, userinfo, port]) =>
          scheme.toLowerCase() !== 'https' || userinfo !== '' || (port !== '' && port !== ':443'),
      );
    fc.assert(
      fc.property(badParts, realHostOrSubdomain, validId, ([scheme, userinfo, port], host, id) => {
        for (const link of linkForms(`${scheme}://${userinfo}${host}${port}`, id)) {
          expect(parsePaymentLink(link, CHECKOUT), link).toBeNull();
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any valid id on the real host and its subdomains', () => {
    fc.assert(
      fc.property(realHostOrSubdomain, validId, (host, id) => {
        for (const link of [...linkForms(`https://${host}`, id), id]) {
          expect(parsePaymentLink(link, CHECKOUT), link).toEqual({ paymentId: id });
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any valid id under a checkout path prefix and refuses it outside', () => {
    fc.assert(
      fc.property(label, validId, (segment, id) => {
        const options = { checkoutUrl: `https://${HOST}/${segment}` };
        for (const link of linkForms(`https://${HOST}/${segment}`, id)) {
          expect(parsePaymentLink(link, options), link).toEqual({ paymentId: id });
        }
        for (const link of linkForms(`https://${HOST}/${segment}x`, id)) {
          expect(parsePaymentLink(link, options), link).toBeNull();
        }
      }),
      { numRuns: 500 },
    );
  });
});
