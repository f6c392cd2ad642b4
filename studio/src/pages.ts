/**
 * Rendered pages: the preview PDF drawn into canvases by pdf.js (its worker served by Platen).
 * A newer PDF stops the drawing of an older one; each page's canvas is swapped only once its new
 * image is complete, so the preview never flickers.
 */
import { getDocument, GlobalWorkerOptions, PDFWorker } from 'pdfjs-dist';

GlobalWorkerOptions.workerSrc = '/studio/pdf.worker.min.mjs';
/** One pdf.js worker for every preview (a new one per document would cost a module load each time). */
let worker: PDFWorker | null = null;

let current = 0;

/**
 * Draw `pdf` into `container`, one canvas per page as wide as the container.
 * @returns the number of pages drawn, or null when a newer call took over.
 * @param onFirstPage called once the first page's new image is on screen.
 */
export async function drawPages(pdf: Uint8Array, container: HTMLElement, onFirstPage: () => void): Promise<number | null> {
  const token = ++current;
  worker ??= new PDFWorker();
  const doc = await getDocument({ data: pdf, worker, isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const width = Math.max(200, container.clientWidth - 24);
    const ratio = window.devicePixelRatio || 1;
    for (let n = 1; n <= doc.numPages; n++) {
      if (token !== current) return null;
      const page = await doc.getPage(n);
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: (width / base.width) * ratio });
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      canvas.style.width = `${width}px`;
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `Page ${n} of ${doc.numPages}`);
      canvas.className = 'page';
      await page.render({ canvasContext: canvas.getContext('2d')!, viewport }).promise;
      if (token !== current) return null;
      const old = container.children[n - 1];
      if (old) container.replaceChild(canvas, old);
      else container.appendChild(canvas);
      if (n === 1) onFirstPage();
    }
    while (container.children.length > doc.numPages) container.lastElementChild!.remove();
    return doc.numPages;
  } finally {
    await doc.destroy();
  }
}
