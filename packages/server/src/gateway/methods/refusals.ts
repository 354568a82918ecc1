import type { Hex } from 'viem';
import { PaymentRefusedError } from '../../chains/evm/index.ts';
import type { ChainRegistry, NetworkInfo } from '../../chains/registry.ts';
import { ApiError } from '../../http/errors.ts';
import type { OptionRow } from '../optionLookup.ts';
import type { WalletResult } from './terms.ts';

export function refused(message: string, reason: string): ApiError {
  return new ApiError('invalid_params', message, { reason });
}

/** The chain layer's refusal of `subject` as the 400 the wallet gets; any other error as it is. */
export function refusalOf(subject: string, error: unknown): unknown {
  return error instanceof PaymentRefusedError
    ? refused(`The ${subject} was refused: ${error.message}.`, error.code)
    : error;
}

export function noLongerAccepted(option: Pick<OptionRow, 'network'>): ApiError {
  return new ApiError('invalid_state', `${option.network} is no longer accepted.`);
}

/** The value of result `index`, refused unless it has the form the action's method returns. */
export function resultValue(results: WalletResult[], index: number, form: RegExp, described: string): Hex {
  const value = results[index]?.data[0] ?? '';
  if (!form.test(value))
    throw ApiError.validation([{ field: `results.${index}.data.0`, message: `must be ${described}` }]);
  return value as Hex;
}

/** The option's EVM network at confirm time; one no longer configured is refused. */
export function acceptedEvmNetwork(chains: ChainRegistry, option: Pick<OptionRow, 'network'>): NetworkInfo {
  const network = chains.network(option.network);
  if (!network) throw noLongerAccepted(option);
  return network;
}
