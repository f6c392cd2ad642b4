/** Types of svg-to-pdfkit (no types of its own): draws an SVG document into a pdfkit document. */
declare module 'svg-to-pdfkit' {
  interface SvgToPdfOptions {
    width?: number;
    height?: number;
    preserveAspectRatio?: string;
    assumePt?: boolean;
    useCSS?: boolean;
    precision?: number;
    fontCallback?: (family: string, bold: boolean, italic: boolean, options: { fauxBold: boolean; fauxItalic: boolean }) => string;
    imageCallback?: (link: string) => string | Buffer;
    documentCallback?: (file: string) => unknown;
    colorCallback?: (color: unknown) => unknown;
    warningCallback?: (message: string) => void;
  }
  function SVGtoPDF(doc: unknown, svg: string, x?: number, y?: number, options?: SvgToPdfOptions): void;
  export default SVGtoPDF;
}
