import type { MerchantView } from './apiTypes.ts';

/**
 * A list's merchant filter: the partner's merchants to choose from (the one the address names kept even when it is
 * not among them), or, where they could not be listed, the merchant's id to type.
 */
export function MerchantFilterField(props: { id: string; merchants: MerchantView[] | undefined; selected: string }) {
  const { merchants, selected } = props;
  return (
    <div class="field">
      <label for={props.id}>Merchant</label>
      {merchants ? (
        <select id={props.id} name="merchantId">
          <option value="">All merchants</option>
          {merchants.map((merchant) => (
            <option key={merchant.id} value={merchant.id} selected={merchant.id === selected}>
              {merchant.name}
            </option>
          ))}
          {selected && !merchants.some((merchant) => merchant.id === selected) && (
            <option value={selected} selected>
              {selected}
            </option>
          )}
        </select>
      ) : (
        <input
          id={props.id}
          name="merchantId"
          type="text"
          maxLength={64}
          placeholder="Merchant id"
          defaultValue={selected}
        />
      )}
    </div>
  );
}
