import { render } from 'preact';
import { App } from './app.tsx';
import { readSettings } from './settings.ts';

const root = document.getElementById('dashboard');
if (root) {
  root.replaceChildren();
  render(<App settings={readSettings(document.body)} />, root);
}
