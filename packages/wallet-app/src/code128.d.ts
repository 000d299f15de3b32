/** The CODE 128 encoder of JsBarcode (automatic A/B/C switching), without its renderers. */
declare module 'jsbarcode/bin/barcodes/CODE128/CODE128_AUTO.js' {
  export default class CODE128 {
    constructor(data: string, options: Record<string, unknown>);
    valid(): boolean;
    /** `data`: one character per module, '1' a bar and '0' a space. */
    encode(): { data: string; text: string };
  }
}
