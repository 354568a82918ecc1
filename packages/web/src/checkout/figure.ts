/** An amount in a sentence the page writes: its figure and symbol kept on one line (`.figure`). */
export function figureOf(text: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = 'figure';
  span.textContent = text;
  return span;
}
