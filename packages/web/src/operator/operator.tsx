import { render } from 'preact';
import { OperatorApp } from './operatorApp.tsx';

const root = document.getElementById('operator');
if (root) {
  root.replaceChildren();
  render(<OperatorApp apiVersions={JSON.parse(document.body.dataset.apiVersions ?? '[]') as string[]} />, root);
}
