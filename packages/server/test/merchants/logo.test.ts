import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchLogo, isSquareEnough, LogoRejectedError, type LogoFetchOptions } from '../../src/merchants/logo.ts';
import { isPublicAddress } from '../../src/net/addressPolicy.ts';
import {
  createTestCertificate,
  redirectTo,
  serveBytes,
  startLogoServer,
  type LogoServer,
  type RouteHandler,
  type TestCertificate,
} from '../support/logoServer.ts';

type Lookup = NonNullable<LogoFetchOptions['lookup']>;

/** A DNS stand-in answering from a fixed table and remembering every name asked. */
function tableLookup(table: Record<string, string[]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: isIP(address) === 6 ? (6 as const) : (4 as const) }));
  };
  return Object.assign(lookup, { calls });
}

function solid(width: number, height: number, alpha = 1): sharp.Sharp {
  return sharp({ create: { width, height, channels: 4, background: { r: 200, g: 40, b: 90, alpha } } });
}

/** An image whose PNG encoding stays about as large as its raw pixels. */
function noisePng(side: number): Promise<Buffer> {
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

async function rejectionOf(promise: Promise<unknown>): Promise<LogoRejectedError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LogoRejectedError);
    return error as LogoRejectedError;
  }
  throw new Error('expected the logo to be rejected');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let certificate: TestCertificate;
const images: Record<string, Buffer> = {};

beforeAll(async () => {
  certificate = await createTestCertificate();
  images.jpeg = await solid(1024, 1024).jpeg().toBuffer();
  images.pngWithAlpha = await solid(800, 800, 0.4).png().toBuffer();
  images.webp = await solid(600, 620).webp().toBuffer();
  images.avif = await solid(512, 512).avif().toBuffer();
  images.smallest = await solid(500, 500).png().toBuffer();
  images.largest = await solid(4096, 4096).png().toBuffer();
  images.withinTolerance = await solid(525, 500).png().toBuffer();
  images.tooSmall = await solid(300, 300).png().toBuffer();
  images.tooLarge = await solid(5000, 5000).png().toBuffer();
  images.tooLongOneSide = await solid(4200, 4100).png().toBuffer();
  images.notSquare = await solid(600, 500).png().toBuffer();
  images.justOutsideTolerance = await solid(500, 527).png().toBuffer();
  images.gif = await solid(600, 600).gif().toBuffer();
  images.noise = await noisePng(1100);
}, 120_000);

describe('isPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.5',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '240.0.0.1',
    '192.0.0.8',
    '::',
    '::1',
    'fe80::1',
    'febf::1',
    'fc00::1',
    'fd12:3456::1',
    'fec0::1',
    'ff02::1',
    '100::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:0:a00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::a00:1',
    '64:ff9b:1::808:808',
    '2002:a00:1::1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:db8::1',
    '2001::1',
    '3fff::1',
    '::10.0.0.1',
    '::8.8.8.8',
    'fe80::1%eth0',
    'not-an-ip',
    '',
    '127.1',
    '0x7f.0.0.1',
  ];
  const accepted = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.253.0.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];

  it.each(refused)('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it.each(accepted)('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('isSquareEnough', () => {
  it('allows a difference of up to 5% of the longer side, inclusive', () => {
    expect(isSquareEnough(1000, 1000)).toBe(true);
    expect(isSquareEnough(1000, 950)).toBe(true);
    expect(isSquareEnough(950, 1000)).toBe(true);
    expect(isSquareEnough(1000, 949)).toBe(false);
    expect(isSquareEnough(500, 527)).toBe(false);
    expect(isSquareEnough(525, 500)).toBe(true);
  });
});

describe('fetchLogo against a local HTTPS server', () => {
  let server: LogoServer;
  let streamedBytes = 0;
  let base: string;
  const lookup = tableLookup({ 'logo.test': ['127.0.0.1'] });
  const options = (): LogoFetchOptions => ({
    allowPrivateHosts: true,
    extraCaCertificates: [certificate.cert],
    lookup,
  });

  beforeAll(async () => {
    const endlessStream: RouteHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = randomBytes(64 * 1024);
      const writeMore = () => {
        while (!res.destroyed && streamedBytes < 64 * 1024 * 1024) {
          streamedBytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', writeMore);
        }
        res.end();
      };
      writeMore();
    };
    const routes: Record<string, RouteHandler> = {
      '/logo.jpg': serveBytes(images.jpeg!, 'image/jpeg'),
      '/logo.png': serveBytes(images.pngWithAlpha!, 'image/png'),
      '/logo.webp': serveBytes(images.webp!, 'image/webp'),
      '/logo.avif': serveBytes(images.avif!, 'image/avif'),
      // The type is told by the bytes: a JPEG behind a misleading name and header is still a JPEG.
      '/jpeg-named.png': serveBytes(images.jpeg!, 'image/png'),
      '/smallest.png': serveBytes(images.smallest!, 'image/png'),
      '/largest.png': serveBytes(images.largest!, 'image/png'),
      '/within-tolerance.png': serveBytes(images.withinTolerance!, 'image/png'),
      '/too-small.png': serveBytes(images.tooSmall!, 'image/png'),
      '/too-large.png': serveBytes(images.tooLarge!, 'image/png'),
      '/too-long-one-side.png': serveBytes(images.tooLongOneSide!, 'image/png'),
      '/not-square.png': serveBytes(images.notSquare!, 'image/png'),
      '/just-outside-tolerance.png': serveBytes(images.justOutsideTolerance!, 'image/png'),
      '/noise.png': serveBytes(images.noise!, 'image/png'),
      '/noise-chunked.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(images.noise);
      },
      '/endless.png': endlessStream,
      '/declared-too-large.png': (_req, res) => {
        // Headers only; the body never comes, so only an up-front Content-Length check can answer quickly.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 3 * 1024 * 1024 });
        res.flushHeaders();
      },
      '/text.png': serveBytes('hello, this is not an image\n', 'text/plain'),
      '/logo-gif.png': serveBytes(images.gif!, 'image/png'),
      '/logo-svg.png': serveBytes(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><rect width="600" height="600"/></svg>',
        'image/png',
      ),
      '/never-answers.png': () => {},
      '/stalls-mid-body.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': images.smallest!.length });
        res.write(images.smallest!.subarray(0, 100));
      },
      '/drips.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        const timer = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(timer));
      },
      '/hop/1': redirectTo('/hop/2', 301),
      '/hop/2': redirectTo('/hop/3', 307),
      '/hop/3': redirectTo('/logo.png', 308),
      '/hop/0': redirectTo('/hop/1'),
      '/to-http': (req, res) => redirectTo(`http://logo.test:${server.port}/logo.png`)(req, res),
      '/redirect-without-location': (_req, res) => res.writeHead(302).end(),
      '/no-content': (_req, res) => res.writeHead(204).end(),
    };
    server = await startLogoServer({ host: '127.0.0.1', certificate, routes });
    base = `https://logo.test:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
  });

  // Maps each path to the name of its fixture, because it.each reads its table before beforeAll fills `images`.
  it.each([
    ['/logo.jpg', 'jpeg', 'image/jpeg', 'jpg', 1024, 1024, 'jpeg'],
    ['/logo.png', 'png', 'image/png', 'png', 800, 800, 'pngWithAlpha'],
    ['/logo.webp', 'webp', 'image/webp', 'webp', 600, 620, 'webp'],
    ['/logo.avif', 'avif', 'image/avif', 'avif', 512, 512, 'avif'],
    ['/jpeg-named.png', 'jpeg', 'image/jpeg', 'jpg', 1024, 1024, 'jpeg'],
    ['/smallest.png', 'png', 'image/png', 'png', 500, 500, 'smallest'],
    ['/largest.png', 'png', 'image/png', 'png', 4096, 4096, 'largest'],
    ['/within-tolerance.png', 'png', 'image/png', 'png', 525, 500, 'withinTolerance'],
  ] as const)('accepts %s as %s', async (path, format, contentType, extension, width, height, fixture) => {
    const expectedBytes = images[fixture]!;
    const logo = await fetchLogo(`${base}${path}`, options());
    expect(logo).toMatchObject({ format, contentType, extension, width, height });
    expect(logo.bytes.equals(expectedBytes)).toBe(true);
    expect(logo.sha256).toBe(sha256(expectedBytes));
    expect(logo.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the transparency of a PNG', async () => {
    const logo = await fetchLogo(`${base}/logo.png`, options());
    expect((await sharp(logo.bytes).metadata()).hasAlpha).toBe(true);
  });

  it.each([
    ['/too-small.png', 'iconUrl image is 300x300 px; the minimum is 500x500 px'],
    ['/too-large.png', 'iconUrl image is larger than the maximum of 4096x4096 px'],
    ['/too-long-one-side.png', 'iconUrl image is larger than the maximum of 4096x4096 px'],
    ['/not-square.png', 'iconUrl image must be square (width and height within 5%); it is 600x500 px'],
    ['/just-outside-tolerance.png', 'iconUrl image must be square (width and height within 5%); it is 500x527 px'],
    ['/text.png', 'iconUrl is not a JPEG, PNG, WebP or AVIF image'],
    ['/logo-gif.png', 'iconUrl is not a JPEG, PNG, WebP or AVIF image'],
    ['/logo-svg.png', 'iconUrl is not a JPEG, PNG, WebP or AVIF image'],
    ['/missing.png', 'iconUrl answered HTTP 404'],
    ['/no-content', 'iconUrl answered HTTP 204'],
    ['/redirect-without-location', 'iconUrl answered HTTP 302 without a Location header'],
    ['/noise.png', 'iconUrl image is larger than 2 MB'],
    ['/noise-chunked.png', 'iconUrl image is larger than 2 MB'],
  ])('rejects %s: %s', async (path, message) => {
    const error = await rejectionOf(fetchLogo(`${base}${path}`, options()));
    expect(error.message).toBe(message);
  });

  it('rejects a too long side even when the pixel count is under the limit', async () => {
    const wide = await solid(4100, 500).png().toBuffer();
    const tall = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: { '/wide.png': serveBytes(wide, 'image/png') },
    });
    try {
      const error = await rejectionOf(fetchLogo(`https://logo.test:${tall.port}/wide.png`, options()));
      expect(error.message).toBe('iconUrl image is 4100x500 px; the maximum is 4096x4096 px');
    } finally {
      await tall.close();
    }
  });

  it('the noise fixture really is a valid PNG over 2 MB', async () => {
    expect(images.noise!.length).toBeGreaterThan(2 * 1024 * 1024);
    expect((await sharp(images.noise!).metadata()).format).toBe('png');
  });

  it('rejects an over-limit Content-Length before reading the body', async () => {
    const started = Date.now();
    const error = await rejectionOf(fetchLogo(`${base}/declared-too-large.png`, { ...options(), timeoutMs: 5000 }));
    expect(error.message).toBe('iconUrl image is larger than 2 MB');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops reading as soon as an undeclared body passes the cap', async () => {
    streamedBytes = 0;
    const error = await rejectionOf(fetchLogo(`${base}/endless.png`, options()));
    expect(error.message).toBe('iconUrl image is larger than 2 MB');
    // Give the server a moment to notice the closed socket, then check it did not get to push much past the cap.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(streamedBytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(streamedBytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('applies a smaller maxBytes', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/logo.jpg`, { ...options(), maxBytes: 1024 }));
    expect(error.message).toBe('iconUrl image is larger than 1 KB');
  });

  it('times out on a server that never answers', async () => {
    const started = Date.now();
    const error = await rejectionOf(fetchLogo(`${base}/never-answers.png`, { ...options(), timeoutMs: 400 }));
    expect(error.message).toBe('iconUrl did not answer within 0.4 s');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out on a body that stalls', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/stalls-mid-body.png`, { ...options(), timeoutMs: 400 }));
    expect(error.message).toMatch(/^iconUrl (did not answer within|stopped sending data for) 0\.4 s$/);
  });

  it('times out on a body that keeps dripping, through the whole-fetch budget', async () => {
    const started = Date.now();
    const error = await rejectionOf(fetchLogo(`${base}/drips.png`, { ...options(), timeoutMs: 600 }));
    expect(error.message).toBe('iconUrl did not answer within 0.6 s');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('follows up to 3 redirects, resolving each hop', async () => {
    lookup.calls.length = 0;
    const logo = await fetchLogo(`${base}/hop/1`, options());
    expect(logo.format).toBe('png');
    expect(lookup.calls).toEqual(['logo.test', 'logo.test', 'logo.test', 'logo.test']);
  });

  it('rejects a redirect chain longer than 3', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/hop/0`, options()));
    expect(error.message).toBe('iconUrl redirected more than 3 times');
  });

  it('honours a smaller maxRedirects', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/hop/2`, { ...options(), maxRedirects: 1 }));
    expect(error.message).toBe('iconUrl redirected more than 1 time');
  });

  it('rejects a redirect to plain HTTP', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/to-http`, options()));
    expect(error.message).toBe('iconUrl redirected to a URL that is not public HTTPS');
  });

  it.each([
    ['http URL', 'http://logo.test/logo.png', 'iconUrl must be a public HTTPS URL'],
    ['ftp URL', 'ftp://logo.test/logo.png', 'iconUrl must be a public HTTPS URL'],
    ['data URL', 'data:image/png;base64,AAAA', 'iconUrl must be a public HTTPS URL'],
    ['relative URL', '/logo.png', 'iconUrl must be a public HTTPS URL'],
    [
      'URL with user info',
      'https://user:secret@logo.test/logo.png',
      'iconUrl must not contain a user name or password',
    ],
  ])('rejects a %s even when private hosts are allowed', async (_label, url, message) => {
    lookup.calls.length = 0;
    const error = await rejectionOf(fetchLogo(url, options()));
    expect(error.message).toBe(message);
    expect(lookup.calls).toEqual([]);
  });

  it('reports a name that does not resolve', async () => {
    const error = await rejectionOf(fetchLogo(`https://nowhere.test:${server.port}/logo.png`, options()));
    expect(error.message).toBe('iconUrl host name does not resolve');
  });

  it('trusts the test certificate only through extraCaCertificates', async () => {
    const error = await rejectionOf(fetchLogo(`${base}/logo.png`, { allowPrivateHosts: true, lookup }));
    expect(error.message).toBe('iconUrl does not present a valid TLS certificate');
  });

  it('reports a refused connection', async () => {
    const closed = await startLogoServer({ host: '127.0.0.1', certificate, routes: {} });
    await closed.close();
    const error = await rejectionOf(fetchLogo(`https://logo.test:${closed.port}/logo.png`, options()));
    expect(error.message).toBe('iconUrl could not be reached (ECONNREFUSED)');
  });
});

describe('fetchLogo refuses non-public addresses without connecting', () => {
  // Trap servers would hand out a valid logo; every refusal below must happen before any TCP connection reaches them.
  let trapV4: LogoServer;
  let trapV6: LogoServer;
  const trust = (): Pick<LogoFetchOptions, 'extraCaCertificates'> => ({ extraCaCertificates: [certificate.cert] });

  beforeAll(async () => {
    const routes = { '/logo.png': serveBytes(images.pngWithAlpha!, 'image/png') };
    trapV4 = await startLogoServer({ host: '127.0.0.1', certificate, routes });
    trapV6 = await startLogoServer({ host: '::1', certificate, routes });
  });
  afterAll(async () => {
    expect(trapV4.connectionCount()).toBe(0);
    expect(trapV6.connectionCount()).toBe(0);
    await trapV4.close();
    await trapV6.close();
  });

  it('the trap servers do serve a valid logo when private hosts are allowed', async () => {
    // Separate servers on other ports, so the traps' own counters stay untouched.
    const routes = { '/logo.png': serveBytes(images.pngWithAlpha!, 'image/png') };
    for (const host of ['127.0.0.1', '::1']) {
      const twin = await startLogoServer({ host, certificate, routes });
      try {
        const lookup = tableLookup({ 'logo.test': [host] });
        const logo = await fetchLogo(`https://logo.test:${twin.port}/logo.png`, {
          allowPrivateHosts: true,
          lookup,
          ...trust(),
        });
        expect(logo.format).toBe('png');
        expect(twin.connectionCount()).toBe(1);
      } finally {
        await twin.close();
      }
    }
  });

  it.each([
    ['127.0.0.1', 'v4'],
    ['::1', 'v6'],
    ['::ffff:127.0.0.1', 'v4'],
  ])('refuses a name resolving to %s', async (address, trap) => {
    const port = trap === 'v4' ? trapV4.port : trapV6.port;
    const lookup = tableLookup({ 'logo.test': [address] });
    const error = await rejectionOf(
      fetchLogo(`https://logo.test:${port}/logo.png`, { allowPrivateHosts: false, lookup, ...trust() }),
    );
    expect(error.message).toBe('iconUrl resolves to a private address');
    expect(lookup.calls).toEqual(['logo.test']);
    expect(trapV4.connectionCount()).toBe(0);
    expect(trapV6.connectionCount()).toBe(0);
  });

  it.each(['10.1.2.3', '172.16.0.5', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fd00::1', 'fe80::1'])(
    'refuses a name resolving to %s',
    async (address) => {
      const lookup = tableLookup({ 'internal.example': [address] });
      const error = await rejectionOf(
        fetchLogo('https://internal.example/logo.png', { allowPrivateHosts: false, lookup, ...trust() }),
      );
      expect(error.message).toBe('iconUrl resolves to a private address');
    },
  );

  it('refuses a name when any one of its addresses is private, even if a public one comes first', async () => {
    const lookup = tableLookup({ 'logo.test': ['93.184.215.14', '2606:4700::1111', '127.0.0.1'] });
    const error = await rejectionOf(
      fetchLogo(`https://logo.test:${trapV4.port}/logo.png`, { allowPrivateHosts: false, lookup, ...trust() }),
    );
    expect(error.message).toBe('iconUrl resolves to a private address');
    expect(trapV4.connectionCount()).toBe(0);
  });

  it.each([
    (port: number) => `https://127.0.0.1:${port}/logo.png`,
    (port: number) => `https://[::ffff:127.0.0.1]:${port}/logo.png`,
    (port: number) => `https://[::ffff:7f00:1]:${port}/logo.png`,
    (port: number) => `https://2130706433:${port}/logo.png`,
    (port: number) => `https://0x7f.1:${port}/logo.png`,
  ])('refuses an IPv4 loopback literal without DNS or connection (%#)', async (urlFor) => {
    const lookup = tableLookup({});
    const error = await rejectionOf(fetchLogo(urlFor(trapV4.port), { allowPrivateHosts: false, lookup, ...trust() }));
    expect(error.message).toBe('iconUrl points to a private address');
    expect(lookup.calls).toEqual([]);
    expect(trapV4.connectionCount()).toBe(0);
  });

  it('refuses an IPv6 loopback literal without DNS or connection', async () => {
    const lookup = tableLookup({});
    const error = await rejectionOf(
      fetchLogo(`https://[::1]:${trapV6.port}/logo.png`, { allowPrivateHosts: false, lookup, ...trust() }),
    );
    expect(error.message).toBe('iconUrl points to a private address');
    expect(lookup.calls).toEqual([]);
    expect(trapV6.connectionCount()).toBe(0);
  });

  it.each([
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/',
    'https://[fd00::1]/',
    'https://[64:ff9b::a00:1]/',
  ])('refuses the literal %s', async (url) => {
    const error = await rejectionOf(fetchLogo(url, { allowPrivateHosts: false, lookup: tableLookup({}) }));
    expect(error.message).toBe('iconUrl points to a private address');
  });
});

describe('fetchLogo re-checks every redirect and connects only to checked addresses', () => {
  // The policy admits exactly 127.0.0.1, standing in for "a public address" that a test can reach.
  const onlyFirstLoopback = (address: string) => address === '127.0.0.1';
  let redirector: LogoServer;
  let target: LogoServer;

  beforeAll(async () => {
    target = await startLogoServer({
      host: '127.0.0.2',
      certificate,
      routes: { '/logo.png': serveBytes(images.pngWithAlpha!, 'image/png') },
    });
    redirector = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: {
        '/to-internal-name': redirectTo(`https://internal.example:${target.port}/logo.png`),
        '/to-internal-literal': redirectTo(`https://127.0.0.2:${target.port}/logo.png`),
        '/logo.png': serveBytes(images.pngWithAlpha!, 'image/png'),
      },
    });
  });
  afterAll(async () => {
    await redirector.close();
    await target.close();
  });

  it('the redirect target is reachable when the policy is lifted', async () => {
    const lookup = tableLookup({ 'public.example': ['127.0.0.1'], 'internal.example': ['127.0.0.2'] });
    const before = target.connectionCount();
    const logo = await fetchLogo(`https://public.example:${redirector.port}/to-internal-name`, {
      allowPrivateHosts: true,
      lookup,
      extraCaCertificates: [certificate.cert],
    });
    expect(logo.format).toBe('png');
    expect(target.connectionCount()).toBe(before + 1);
  });

  it.each(['/to-internal-name', '/to-internal-literal'])(
    'refuses a redirect (%s) from an allowed host to a private address',
    async (path) => {
      const lookup = tableLookup({ 'public.example': ['127.0.0.1'], 'internal.example': ['127.0.0.2'] });
      const targetBefore = target.connectionCount();
      const redirectorBefore = redirector.connectionCount();
      const error = await rejectionOf(
        fetchLogo(`https://public.example:${redirector.port}${path}`, {
          allowPrivateHosts: false,
          isAddressAllowed: onlyFirstLoopback,
          lookup,
          extraCaCertificates: [certificate.cert],
        }),
      );
      expect(error.message).toMatch(/^iconUrl (resolves|points) to a private address$/);
      expect(redirector.connectionCount()).toBe(redirectorBefore + 1);
      expect(target.connectionCount()).toBe(targetBefore);
    },
  );

  it('resolves a name once and connects to the checked address even if DNS would now answer differently', async () => {
    // A rebinding resolver: first answer passes the check, any later answer points elsewhere.
    const calls: string[] = [];
    const rebinding: Lookup = async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    const targetBefore = target.connectionCount();
    const logo = await fetchLogo(`https://public.example:${redirector.port}/logo.png`, {
      allowPrivateHosts: false,
      isAddressAllowed: onlyFirstLoopback,
      lookup: rebinding,
      extraCaCertificates: [certificate.cert],
    });
    expect(logo.format).toBe('png');
    expect(calls).toEqual(['public.example']);
    expect(target.connectionCount()).toBe(targetBefore);
  });
});
