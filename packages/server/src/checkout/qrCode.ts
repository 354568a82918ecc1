import QRCode from 'qrcode';
import { escapeHtml } from './html.ts';

/** The QR code of `uri` as inline SVG, an image named `label` for screen readers. */
export async function qrCodeSvg(uri: string, label: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return svg.replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" focusable="false" `);
}
