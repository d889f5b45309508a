import { describe, expect, it } from 'vitest';
import { matchesContentType } from '../../shared/documents/content-type';
import { contentDisposition } from '../../shared/documents/storage';
import { documentContentTypes, type DocumentContentType } from '../../shared/documents/schemas';

const bytes = (...values: (number | string)[]) =>
  new Uint8Array(values.flatMap((value) => (typeof value === 'string' ? [...Buffer.from(value, 'latin1')] : [value])));

const samples: Record<DocumentContentType, Uint8Array> = {
  'application/pdf': bytes('%PDF-1.7\n'),
  'image/jpeg': bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'JFIF'),
  'image/png': bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d),
  'image/heic': bytes(0, 0, 0, 0x18, 'ftypheic', 0, 0, 0, 0),
  'image/tiff': bytes('II', 0x2a, 0, 8, 0, 0, 0),
  'application/xml': bytes(0xef, 0xbb, 0xbf, '<?xml version="1.0"?><Invoice/>'),
  'text/xml': bytes('\n  <Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'),
  'text/csv': bytes('date,amount\n2026-03-14,245.00\n'),
  'text/plain': bytes('Kvittering 245,00 NOK\n'),
};

describe('document content type check (first bytes)', () => {
  it.each(documentContentTypes.map((type) => [type] as const))('%s: its own sample matches', (type) => {
    expect(matchesContentType(type, samples[type])).toBe(true);
  });

  it('refuses a type spoofed by its bytes', () => {
    expect(matchesContentType('application/pdf', samples['image/png'])).toBe(false);
    expect(matchesContentType('image/png', samples['application/pdf'])).toBe(false);
    expect(matchesContentType('image/jpeg', samples['image/png'])).toBe(false);
    expect(matchesContentType('image/heic', bytes(0, 0, 0, 0x18, 'ftypisom'))).toBe(false);
    expect(matchesContentType('text/csv', samples['application/pdf'])).toBe(false);
    expect(matchesContentType('text/plain', bytes('abc', 0, 'def'))).toBe(false);
    expect(matchesContentType('application/xml', samples['text/plain'])).toBe(false);
    expect(matchesContentType('image/tiff', bytes('MM', 0, 0x2a))).toBe(true);
  });

  it('gives the file name on download: an ASCII fallback and the exact name (RFC 6266/8187)', () => {
    expect(contentDisposition('a.pdf')).toBe(`attachment; filename="a.pdf"; filename*=UTF-8''a.pdf`);
    expect(contentDisposition('Kvittering "æ" (1).pdf')).toBe(`attachment; filename="Kvittering _æ_ (1).pdf"`.replace('æ', '_') + `; filename*=UTF-8''Kvittering%20%22%C3%A6%22%20%281%29.pdf`);
  });
});
