import { CopyButton } from '../ui/common.tsx';
import { shortened } from '../ui/format.ts';
import type { NetworkDirectory } from './networks.ts';

/**
 * A transaction hash, linked to its explorer page where the network has an explorer, with a button that copies it
 * whole; `short` shows its start and end for a narrow column, the whole in a title.
 */
export function TransactionHash(props: {
  hash: string;
  chain: string | undefined;
  networks: NetworkDirectory | undefined;
  short?: boolean;
}) {
  const href = props.chain ? props.networks?.transactionLink(props.chain, props.hash) : undefined;
  const hash = props.short ? (
    <code class="hash" title={props.hash}>
      {shortened(props.hash)}
    </code>
  ) : (
    <code class="hash">{props.hash}</code>
  );
  return (
    <span class="copyable">
      {href ? (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {hash}
          <span class="visually-hidden"> (opens the explorer in a new tab)</span>
        </a>
      ) : (
        hash
      )}{' '}
      <CopyButton text={props.hash} what="transaction hash" />
    </span>
  );
}
