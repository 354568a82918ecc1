import { decimalAmount } from '@paygate/client/money';

/** What a Solana Pay transfer request asks a wallet to send (the `solana:` URI of the Solana Pay specification). */
export interface TransferRequest {
  /** The owner of the account credited; for an SPL token, the wallet credits the owner's associated token account. */
  recipient: string;
  /** Token minor units. */
  amount: bigint;
  decimals: number;
  /** The SPL token's mint; absent for SOL. */
  splToken?: string;
  /** Keys the wallet adds to the transfer instruction, read-only and not signing, so the transfer can be found. */
  references: string[];
  label?: string;
  message?: string;
  memo?: string;
}

/** `solana:<recipient>?amount=…&spl-token=…&reference=…&label=…&message=…&memo=…`, values URL-encoded. */
export function transferRequestUri(request: TransferRequest): string {
  const params: string[] = [`amount=${decimalAmount(request.amount, request.decimals)}`];
  if (request.splToken) params.push(`spl-token=${request.splToken}`);
  for (const reference of request.references) params.push(`reference=${reference}`);
  if (request.label) params.push(`label=${encodeURIComponent(request.label)}`);
  if (request.message) params.push(`message=${encodeURIComponent(request.message)}`);
  if (request.memo) params.push(`memo=${encodeURIComponent(request.memo)}`);
  return `solana:${request.recipient}?${params.join('&')}`;
}

/** A parsed transfer request: the amount stays the decimal text the wallet reads. */
export interface ParsedTransferRequest {
  recipient: string;
  amount: string | undefined;
  splToken: string | undefined;
  references: string[];
  label: string | undefined;
  message: string | undefined;
  memo: string | undefined;
}

/** Reads a `solana:` transfer request as a wallet does; null for anything else (a transaction request's link too). */
export function parseTransferRequestUri(uri: string): ParsedTransferRequest | null {
  const match = /^solana:([1-9A-HJ-NP-Za-km-z]{32,44})(?:\?(.*))?$/.exec(uri);
  if (!match) return null;
  const query = new URLSearchParams(match[2] ?? '');
  return {
    recipient: match[1] as string,
    amount: query.get('amount') ?? undefined,
    splToken: query.get('spl-token') ?? undefined,
    references: query.getAll('reference'),
    label: query.get('label') ?? undefined,
    message: query.get('message') ?? undefined,
    memo: query.get('memo') ?? undefined,
  };
}
