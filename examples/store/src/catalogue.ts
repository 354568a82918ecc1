/** What the store sells. Prices are minor units of `STORE_CURRENCY`, as paygate takes them. */

export const STORE_NAME = 'Copper Kettle Tea';
export const STORE_CURRENCY = 'USD';
export const CURRENCY_DECIMALS = 2;

export interface Product {
  id: string;
  name: string;
  description: string;
  price: bigint;
  /** The colour of the product's tin on the page. */
  tin: string;
}

export const PRODUCTS: readonly Product[] = [
  {
    id: 'sencha',
    name: 'Morning Sencha',
    description: 'Grassy Japanese green tea, steamed and rolled. 100 g loose leaf.',
    price: 1200n,
    tin: '#4d7c4a',
  },
  {
    id: 'earl-grey',
    name: 'Harbour Earl Grey',
    description: 'Ceylon black tea with cold-pressed bergamot. 100 g loose leaf.',
    price: 950n,
    tin: '#3c4f7a',
  },
  {
    id: 'gift-tins',
    name: 'Three-tin gift set',
    description: 'Sencha, Earl Grey and a roasted hojicha in copper tins, boxed.',
    price: 3400n,
    tin: '#a0522d',
  },
];

export function productOf(id: string): Product | undefined {
  return PRODUCTS.find((product) => product.id === id);
}
