import type { Address } from 'viem';
import type { AppContext } from '../context.ts';
import { decimalAmount } from '@paygate/client/money';
import type { PaymentRow } from '../payments/paymentResource.ts';
import type { AcceptedChoice } from './checkoutPage.ts';
import { formatTokenAmount } from '@paygate/web/checkout/view.ts';
import type { DepositChoice } from './depositPanel.ts';
import { fixDepositQuotes } from '../deposits/depositQuotes.ts';
import { eip681TransferUri } from '../deposits/eip681.ts';

/**
 * The "send from any wallet" way to pay each token and native coin the page lists on an EVM network: the deposit
 * address, the amount fixed for it (the first quote shown, kept for the payment's life) and its EIP-681 request.
 * The native coin is paid by a plain value transfer (EIP-681 `?value=`).
 */
export async function checkoutDeposits(
  ctx: AppContext,
  payment: PaymentRow,
  accepted: readonly AcceptedChoice[],
  locale: string,
): Promise<DepositChoice[]> {
  const evm = ctx.chainServices?.evm;
  if (!evm) return [];
  const listed = accepted.flatMap((choice) => {
    const token = ctx.chains.token(choice.asset);
    const network = ctx.chains.network(choice.network);
    if (!token || !network || network.namespace !== 'eip155') return [];
    return [{ choice, token, network }];
  });
  const quotes = await fixDepositQuotes(
    ctx.db,
    evm.collector,
    payment,
    listed.map(({ choice, token }) => ({
      chain: choice.network,
      asset: choice.asset,
      amount: BigInt(choice.amount),
      native: token.method === 'native',
    })),
  );
  return quotes.map((fixed) => {
    const { choice, token, network } = listed.find(
      (entry) => entry.choice.asset === fixed.asset && entry.choice.network === fixed.chain,
    ) as (typeof listed)[number];
    // After a transfer of less than asked, the panel asks for the rest.
    const received = payment.exceptions.find(
      (exception) =>
        exception.type === 'underpaid' && exception.network === fixed.chain && exception.asset === fixed.asset,
    );
    const quote = received ? { ...fixed, amount: fixed.amount - BigInt(received.amount) } : fixed;
    const chainId = Number(network.caip2.slice('eip155:'.length));
    const uri = eip681TransferUri({
      chainId,
      recipient: quote.address,
      amount: quote.amount,
      ...(token.address ? { token: token.address as Address } : {}),
    });
    const decimal = decimalAmount(quote.amount, token.decimals);
    const amountText = formatTokenAmount(
      quote.amount.toString(),
      { assetSymbol: token.symbol, decimals: token.decimals },
      locale,
    );
    return {
      asset: quote.asset,
      network: network.caip2,
      networkName: network.name,
      chainId,
      symbol: token.symbol,
      ...(token.address ? { tokenAddress: token.address } : {}),
      address: quote.address,
      amount: quote.amount.toString(),
      amountText,
      decimalAmount: decimal,
      exactAmountText: new Intl.NumberFormat(locale, { maximumFractionDigits: Math.min(token.decimals, 20) }).format(
        decimal as Intl.StringNumericLiteral,
      ),
      uri,
      checked: choice.checked,
      ...(received
        ? {
            receivedText: formatTokenAmount(
              received.amount,
              { assetSymbol: token.symbol, decimals: token.decimals },
              locale,
            ),
          }
        : {}),
    };
  });
}
