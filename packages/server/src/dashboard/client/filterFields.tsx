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

/** How many rows a page of a list shows: the sizes offered, and the one in the address kept even when not offered. */
export function PageSizeField(props: { sizes: readonly string[]; selected: string }) {
  return (
    <div class="field">
      <label for="filter-limit">Per page</label>
      <select id="filter-limit" name="limit">
        {[...new Set([...props.sizes, props.selected])].map((size) => (
          <option key={size} value={size} selected={size === props.selected}>
            {size}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A filter form's buttons: apply what is chosen, or clear every filter. */
export function FilterActions(props: { onClear: () => void }) {
  return (
    <div class="actions">
      <button type="submit" class="primary">
        Apply filters
      </button>
      <button type="button" class="quiet" onClick={props.onClear}>
        Clear filters
      </button>
    </div>
  );
}
