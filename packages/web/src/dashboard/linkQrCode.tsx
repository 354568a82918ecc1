import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';

/** A link as a QR code for a buyer's phone, drawn in the page. */
export function LinkQrCode(props: { link: string; label: string }) {
  const [svg, setSvg] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    void QRCode.toString(props.link, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then((drawn) => {
      if (current) setSvg(drawn);
    });
    return () => {
      current = false;
    };
  }, [props.link]);
  if (!svg) return null;
  return (
    <figure class="qr" role="img" aria-label={props.label}>
      {/* The library's own SVG markup for text it was given: no input of the page's reaches it. */}
      <div dangerouslySetInnerHTML={{ __html: svg }} />
    </figure>
  );
}
