/**
 * The service's layers, lowest first: a module may import its own layer and those below it, never one above. A
 * lower layer reports upward through callbacks it is given (as the chain followers' `onFinal`). Run in `npm test`
 * (`npm run layers`); imports that broke the rule when it was written are listed in
 * `.dependency-cruiser-known-violations.json` and are to be removed, never added to.
 */
const src = '^packages/server/src/';
const layers = [
  {
    name: 'foundation',
    path: `${src}(db|jobs|net)/|${src}(clock|ids|log|money|memo|config|dataEncryptionKey|userFacingError|version|terminalPassphrase)\\.ts$`,
  },
  { name: 'chains', path: `${src}chains/` },
  { name: 'domain', path: `${src}(ledger|payouts|screening)/` },
  {
    name: 'features',
    // `context.ts` is types only: what a feature's handlers may use, made by the surfaces (`runtime.ts`).
    path: `${src}(http|payments|gateway|refunds|settlement|deposits|solanaPay|x402|webhooks|merchants|partners|collectorInflows|paymentMethods|paymentLinks|networks)/|${src}context\\.ts$`,
  },
  {
    name: 'surfaces',
    path: `${src}(checkout|dashboard|operator|pointOfSale|composition|cli)/|${src}(app|runtime|startService)\\.ts$`,
  },
];

module.exports = {
  forbidden: [
    ...layers.flatMap((lower, index) =>
      layers.slice(index + 1).map((upper) => ({
        name: `${lower.name}-not-above`,
        comment: `${lower.name} imports ${upper.name}, a layer above it: pass a callback down instead`,
        severity: 'error',
        from: { path: lower.path },
        to: { path: upper.path },
      })),
    ),
    {
      name: 'web-not-server',
      comment:
        'the browser code imports nothing of the server: it reads the API (its types from @paygate/client), and ' +
        'the server serves it',
      severity: 'error',
      from: { path: '^packages/web/' },
      to: { path: '^packages/server/' },
    },
    {
      name: 'checkout-runtime-alone',
      comment:
        '@paygate/checkout is published: it imports only other published packages, never the server or the ' +
        "service's browser code",
      severity: 'error',
      from: { path: '^packages/checkout/src/' },
      to: { path: '^packages/(server|web|devnet)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
