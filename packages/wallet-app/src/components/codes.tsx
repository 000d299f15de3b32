import { encode } from 'uqr';
import CODE128 from 'jsbarcode/bin/barcodes/CODE128/CODE128_AUTO.js';

/**
 * A string drawn as a QR code, in the page (uqr encodes it; nothing leaves the machine). Dark modules
 * are one SVG path, with a quiet zone of four modules.
 */
export function QrSvg(props: { value: string; label: string; class?: string }) {
  const { data, size } = encode(props.value, { border: 4 });
  let path = '';
  data.forEach((row, y) => row.forEach((dark, x) => (path += dark ? `M${x} ${y}h1v1h-1z` : '')));
  return (
    <svg class={props.class ?? 'qr'} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={props.label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

/** A QR code with its text under it. */
export function QrCode(props: { value: string; label: string }) {
  return (
    <figure class="code">
      <QrSvg value={props.value} label={props.label} />
      <figcaption class="mono">{props.value}</figcaption>
    </figure>
  );
}

/** A string drawn as a CODE 128 bar code (JsBarcode's encoder; bars drawn here), or null when CODE 128 cannot hold it. */
export function Code128(props: { value: string; label: string }) {
  const barcode = new CODE128(props.value, {});
  if (!barcode.valid()) return null;
  const { data } = barcode.encode();
  const quiet = 10;
  let path = '';
  for (let x = 0; x < data.length; x++) if (data[x] === '1') path += `M${x + quiet} 0h1v40h-1z`;
  const width = data.length + 2 * quiet;
  return (
    <figure class="code">
      <svg class="barcode" viewBox={`0 0 ${width} 40`} role="img" aria-label={props.label} shape-rendering="crispEdges" preserveAspectRatio="none">
        <rect width={width} height={40} fill="#fff" />
        <path d={path} fill="#000" />
      </svg>
      <figcaption class="mono">{props.value}</figcaption>
    </figure>
  );
}
