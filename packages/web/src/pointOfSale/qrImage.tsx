import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';

/** `text` as a QR code, drawn here as SVG so no request stands between the charge and the code on screen. */
export function QrImage(props: { text: string; label: string; className: string }) {
  const [svg, setSvg] = useState('');
  useEffect(() => {
    let current = true;
    void QRCode.toString(props.text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then((drawn) => {
      if (current) setSvg(drawn);
    });
    return () => {
      current = false;
    };
  }, [props.text]);
  return (
    // The SVG is the encoder's own markup of the text, no markup of the text itself.
    <div class={props.className} role="img" aria-label={props.label} dangerouslySetInnerHTML={{ __html: svg }} />
  );
}
