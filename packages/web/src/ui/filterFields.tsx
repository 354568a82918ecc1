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
